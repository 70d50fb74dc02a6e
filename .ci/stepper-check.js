// Injected by .ci/book-overflow only, never shipped: drives every stepper of the page (see
// book/stepper.js) from its first step to its last with its Next button, and checks on the
// way that the step its chapter marks shows what the mark says when it is reached (the wait's
// arrow, the error's SQLSTATE or the command tag, in the marked session's column), that every
// step is shown at the end, and that no stepper is wider than its column. Each pair's bar is
// stepped too: every step must show each side's statements up to that step of the script.
// Writes what it found where `chromium --dump-dom` shows it.
window.addEventListener("load", () => {
  setTimeout(() => {
    // What the marked row shows, in the words of a mark.
    function shows(stepper, row, mark) {
      const words = /^(\S+) (waits on|fails with|gets) (.+?)( again)?$/.exec(mark) || [];
      const [, session, verb, what] = words;
      const cell = row.querySelector(".stepper-cell");
      const heads = [...stepper.querySelectorAll(".stepper-session")];
      const column = heads[Number(cell.style.gridColumn) - 1];
      if (!column || column.textContent !== session) return `a statement of ${column && column.textContent}`;
      const waits = [...row.querySelectorAll(".stepper-wait")].map((w) => w.textContent);
      const result = row.querySelector(".stepper-result").textContent;
      if (verb === "waits on") return waits.includes(`${session} waits on ${what}`) ? true : `waits: ${waits}`;
      if (verb === "fails with") return result.startsWith(`→ error ${what}`) ? true : result;
      if (verb === "gets") return result.split(/[→,(]/).map((t) => t.trim()).includes(what) ? true : result;
      return `a mark it cannot read`;
    }

    const found = [...document.querySelectorAll("div.stepper")].map((stepper, n) => {
      const problems = [];
      const next = stepper.querySelector(".stepper-next");
      const rows = [...stepper.querySelectorAll(".stepper-row")];
      if (!next || rows.length === 0) return { n, problems: ["it was not drawn"] };
      const mark = stepper.dataset.mark;
      if (!mark) problems.push("it marks no step");
      let sawMark = !mark;
      // From the first step: a pair's bar may have left it anywhere.
      while (!stepper.querySelector(".stepper-previous").disabled) {
        stepper.querySelector(".stepper-previous").click();
      }
      for (let guard = 0; guard <= rows.length; guard++) {
        const step = Number(stepper.dataset.step);
        const shown = rows.filter((row) => !row.hidden).length;
        if (shown !== step) problems.push(`at step ${step}, ${shown} rows are shown`);
        if (mark && step === stepper.stepperMarked) {
          const row = rows[step - 1];
          const showed = shows(stepper, row, mark);
          if (row.hidden || showed !== true) {
            problems.push(`the marked step ${step} does not show "${mark}" (it shows ${showed})`);
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

    document.querySelectorAll("div.stepper-pair").forEach((pair, n) => {
      const problems = [];
      const sides = [...pair.querySelectorAll("div.stepper")];
      const next = pair.querySelector(".stepper-pair-next");
      if (sides.length !== 2 || !next) {
        found.push({ n, pair: true, problems: ["the pair was not drawn"] });
        return;
      }
      const statements = sides.map((side) => JSON.parse(side.querySelector("script").textContent).statements);
      // From the script's first step: each side's own stepping above left it at its end.
      // (A disabled button does not click: on, then back, makes the bar show its step again.)
      const previous = pair.querySelector(".stepper-pair-previous");
      next.click();
      while (!previous.disabled) previous.click();
      for (let guard = 0; guard < 1000; guard++) {
        const upTo = Number(pair.dataset.scriptStep);
        sides.forEach((side, s) => {
          const expected = Math.max(1, statements[s].filter((st) => st.script_step <= upTo).length);
          const shown = [...side.querySelectorAll(".stepper-row")].filter((row) => !row.hidden).length;
          if (shown !== expected) {
            problems.push(`at the script's step ${upTo}, side ${s + 1} shows ${shown} rows, not ${expected}`);
          }
        });
        if (pair.scrollWidth - pair.clientWidth > 1) problems.push(`at the script's step ${upTo}, it is too wide`);
        if (next.disabled) break;
        next.click();
      }
      found.push({ n, pair: true, problems });
    });

    const report = document.createElement("div");
    report.id = "stepper-report";
    report.textContent = JSON.stringify(found);
    document.body.appendChild(report);
  }, 1000);
});
