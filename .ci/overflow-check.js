// Injected by .ci/book-overflow only, never shipped: after the page (and its diagrams) has
// rendered, count the code blocks wider than their column, and write the count where
// `chromium --dump-dom` shows it.
window.addEventListener("load", () => {
  setTimeout(() => {
    // mdBook scrolls either the <pre> or the <code> inside it: measure both.
    const over = (pre) =>
      Math.max(
        ...[pre, ...pre.querySelectorAll("code")].map((e) => e.scrollWidth - e.clientWidth)
      );
    const wide = [...document.querySelectorAll("main pre")].filter((pre) => over(pre) > 1);
    const report = document.createElement("div");
    report.id = "overflow-report";
    const page = document.documentElement;
    report.textContent = JSON.stringify({
      pageOver: page.scrollWidth - page.clientWidth,
      blocks: document.querySelectorAll("main pre").length,
      wide: wide.map((pre) => ({
        over: over(pre),
        start: pre.textContent.trim().slice(0, 60),
      })),
    });
    document.body.appendChild(report);
  }, 1000);
});
