// Injected by .ci/book-overflow only, never shipped: lists what the reader sees of the page's
// structure, in order: every heading (its level and text) and every code block or diagram, each
// with the heading it stands under. .ci/page-structure.py holds the list to the chapter's own
// Markdown, so that an include that breaks out of its listing (a spec's `#` comments rendered as
// headings, a fence that swallows the section after it) fails the build instead of a reader.
window.addEventListener("load", () => {
  setTimeout(() => {
    const main = document.querySelector("main");
    const headings = [];
    const blocks = [];
    for (const element of main.querySelectorAll("h1, h2, h3, h4, h5, h6, pre")) {
      if (element.tagName === "PRE") {
        // A stepper draws no <pre>; mdbook-mermaid turns a ```mermaid listing into one.
        const kind = element.classList.contains("mermaid") ? "diagram" : "code";
        blocks.push({ kind, under: headings.length, start: element.textContent.trim().slice(0, 60) });
      } else {
        headings.push({ level: Number(element.tagName[1]), text: element.textContent.trim() });
      }
    }
    const report = document.createElement("div");
    report.id = "structure-report";
    report.textContent = JSON.stringify({ headings, blocks });
    document.body.appendChild(report);
  }, 1000);
});
