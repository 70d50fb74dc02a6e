// Injected by .ci/book-overflow only, never shipped: drives every stepper of the page (see
// book/stepper.js) from its first step to its last with its Next button, and checks on the
// way that the step its chapter marks shows the marked wait when it is reached, that every
// step is shown at the end, and that no stepper is wider than its column. Writes what it found
// where `chromium --dump-dom` shows it.
window.addEventListener("load", () => {
  setTimeout(() => {
    const found = [...document.querySelectorAll("div.stepper")].map((stepper, n) => {
      const problems = [];
      const next = stepper.querySelector(".stepper-next");
      const rows = [...stepper.querySelectorAll(".stepper-row")];
      if (!next || rows.length === 0) return { n, problems: ["it was not drawn"] };
      const mark = stepper.dataset.mark;
      let sawMark = !mark;
      for (let guard = 0; guard <= rows.length; guard++) {
        const step = Number(stepper.dataset.step);
        const shown = rows.filter((row) => !row.hidden).length;
        if (shown !== step) problems.push(`at step ${step}, ${shown} rows are shown`);
        if (mark && step === stepper.stepperMarked) {
          const row = rows[step - 1];
          const waits = [...row.querySelectorAll(".stepper-wait")].map((w) => w.textContent);
          if (row.hidden || !waits.includes(mark)) {
            problems.push(`the marked step ${step} does not show "${mark}" (it shows ${waits})`);
          }
          sawMark = true;
        }
        if (stepper.scrollWidth - stepper.clientWidth > 1) {
          problems.push(`at step ${step}, it is ${stepper.scrollWidth - stepper.clientWidth} px too wide`);
        }
        if (next.disabled) break;
        next.click();
      }
      if (!sawMark) problems.push(`no step shows the marked "${mark}"`);
      if (rows.some((row) => row.hidden)) problems.push("its last step hides some rows");
      return { n, steps: rows.length, problems };
    });
    const report = document.createElement("div");
    report.id = "stepper-report";
    report.textContent = JSON.stringify(found);
    document.body.appendChild(report);
  }, 1000);
});
