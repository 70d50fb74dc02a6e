// The stepper: a recorded race, statement by statement. Each `<div class="stepper">` in a
// chapter holds the JSON of a scenario's statements (lessons/NN-…/statements/*.snap, past
// insta's header) in a `<script type="application/json">`; this draws it as one column per
// session and one row per statement, shown up to the current step, with Previous, Next and a
// slider (and the arrow keys, once the stepper has focus). A statement that waited shows an
// arrow from its session to the session it waited on. `data-mark` marks the step the chapter's
// text talks about, the first statement that fits it: "worker-2 waits on worker-1",
// "worker-2 fails with 23505" (its SQLSTATE) or "worker-2 gets INSERT 0 0" (its command tag,
// or for a step of lesson 13's anomalies the value it read); "… again" names the second.
// Two steppers inside a `<div class="stepper-pair">` (the shipped exercise and the solution,
// played through the same script) sit side by side, and a bar above them steps both by the
// script's steps, so that each step shows what each handler had done by then. Without
// JavaScript nothing is drawn, and the chapter's static trace, just above, tells the same story.
(function () {
    "use strict";

    function element(tag, className, text) {
        const made = document.createElement(tag);
        if (className) made.className = className;
        if (text !== undefined) made.textContent = text;
        return made;
    }

    // What the server answered, as the trace words it.
    function answered(statement) {
        const answer = statement.answer;
        if (answer === null) return "no answer";
        if (answer.failed !== undefined) return "error " + answer.failed;
        return answer.done.join(", ");
    }

    // Whether `statement` is what `mark` names (see the top of this file).
    function fits(statement, mark) {
        const words = /^(\S+) (waits on|fails with|gets) (.+)$/.exec(mark || "");
        if (!words || statement.session !== words[1]) return false;
        const [, , verb, what] = words;
        const answer = statement.answer || {};
        if (verb === "waits on") return statement.waited_on.includes(what);
        if (verb === "fails with") return answer.failed === what;
        return (answer.done || []).includes(what);
    }

    // The step `mark` names: the first statement that fits it, or the second for "… again".
    function markedStep(statements, mark) {
        const again = / again$/.test(mark || "");
        const words = (mark || "").replace(/ again$/, "");
        const fitting = statements.flatMap((statement, i) => (fits(statement, words) ? [i] : []));
        return fitting[again ? 1 : 0] ?? -1;
    }

    function build(root) {
        const data = JSON.parse(root.querySelector("script").textContent);
        const statements = data.statements;
        const sessions = [];
        for (const s of statements) if (!sessions.includes(s.session)) sessions.push(s.session);
        const mark = root.dataset.mark;
        const marked = markedStep(statements, mark);

        root.tabIndex = 0;
        root.setAttribute("role", "group");
        const title = root.dataset.title;
        root.setAttribute("aria-label", (title ? title + ": " : "") + "the race, statement by statement");
        if (title) root.append(element("div", "stepper-title", title));
        root.style.setProperty("--sessions", sessions.length);

        const controls = element("div", "stepper-controls");
        const previous = element("button", "stepper-previous", "◀ Previous");
        const next = element("button", "stepper-next", "Next ▶");
        const slider = element("input", "stepper-slider");
        slider.type = "range";
        slider.min = "1";
        slider.max = String(statements.length);
        slider.setAttribute("aria-label", "Step");
        const where = element("span", "stepper-where");
        where.setAttribute("aria-live", "polite");
        controls.append(previous, next, slider, where);

        const grid = element("div", "stepper-grid");
        for (const session of sessions) grid.append(element("div", "stepper-session", session));
        const rows = statements.map((statement, i) => {
            const column = sessions.indexOf(statement.session);
            const row = element("div", "stepper-row");
            row.dataset.step = String(i + 1);
            const cell = element("div", "stepper-cell");
            cell.style.gridColumn = String(column + 1);
            const sql = element("code", "stepper-sql", statement.sql);
            cell.append(element("span", "stepper-number", String(i + 1)), sql);
            if (statement.parameters.length > 0) {
                const shown = statement.parameters.map((p, n) => "$" + (n + 1) + " = " + p);
                cell.append(element("div", "stepper-parameters", shown.join(", ")));
            }
            const result = element("div", "stepper-result", "→ " + answered(statement));
            if (statement.answer && statement.answer.failed !== undefined) {
                result.classList.add("stepper-error");
            }
            if (statement.then === "open") result.textContent += " (transaction open)";
            if (statement.then === "failed") result.textContent += " (transaction failed)";
            cell.append(result);
            row.append(cell);
            for (const holder of statement.waited_on) {
                const to = sessions.indexOf(holder);
                if (to < 0) continue;
                const arrow = element("div", "stepper-wait");
                const [from, until] = column < to ? [column, to] : [to, column];
                arrow.style.gridColumn = from + 1 + " / " + (until + 2);
                arrow.classList.add(column < to ? "stepper-wait-right" : "stepper-wait-left");
                arrow.append(element("span", "", statement.session + " waits on " + holder));
                row.append(arrow);
            }
            if (i === marked) {
                row.classList.add("stepper-marked");
                row.append(element("div", "stepper-mark", "◆ " + mark));
            }
            grid.append(row);
            return row;
        });
        root.append(controls, grid);

        let step = 1;
        function show(to) {
            step = Math.max(1, Math.min(statements.length, to));
            rows.forEach((row, i) => {
                row.hidden = i >= step;
                row.classList.toggle("stepper-current", i === step - 1);
            });
            slider.value = String(step);
            previous.disabled = step === 1;
            next.disabled = step === statements.length;
            where.textContent = "step " + step + " of " + statements.length;
            root.dataset.step = String(step);
        }
        previous.addEventListener("click", () => show(step - 1));
        next.addEventListener("click", () => show(step + 1));
        slider.addEventListener("input", () => show(Number(slider.value)));
        root.addEventListener("keydown", (event) => {
            if (event.target === slider) return;
            if (event.key === "ArrowRight") show(step + 1);
            else if (event.key === "ArrowLeft") show(step - 1);
            else if (event.key === "Home") show(1);
            else if (event.key === "End") show(statements.length);
            else return;
            event.preventDefault();
        });
        root.stepperMarked = marked + 1;
        // For a pair's bar: show every statement sent up to the script's step `scriptStep`.
        root.stepperShowScriptStep = (scriptStep) =>
            show(statements.filter((s) => s.script_step <= scriptStep).length);
        root.stepperScriptSteps = statements.map((s) => s.script_step);
        show(1);
    }

    // The bar over a pair: Previous and Next step both sides by one step of their script.
    function pair(root) {
        const sides = [...root.querySelectorAll("div.stepper")].filter((s) => s.stepperShowScriptStep);
        const scriptSteps = [...new Set(sides.flatMap((s) => s.stepperScriptSteps))].sort((a, b) => a - b);
        const controls = element("div", "stepper-controls stepper-pair-controls");
        const previous = element("button", "stepper-pair-previous", "◀ Both back");
        const next = element("button", "stepper-pair-next", "Both on ▶");
        const where = element("span", "stepper-where");
        where.setAttribute("aria-live", "polite");
        controls.append(previous, next, where);
        root.prepend(controls);
        let at = 0;
        function show(to) {
            at = Math.max(0, Math.min(scriptSteps.length - 1, to));
            for (const side of sides) side.stepperShowScriptStep(scriptSteps[at]);
            previous.disabled = at === 0;
            next.disabled = at === scriptSteps.length - 1;
            where.textContent = "both, up to the script's step " + (at + 1) + " of " + scriptSteps.length;
            root.dataset.scriptStep = String(scriptSteps[at]);
        }
        previous.addEventListener("click", () => show(at - 1));
        next.addEventListener("click", () => show(at + 1));
        show(0);
    }

    for (const root of document.querySelectorAll("div.stepper")) {
        try {
            build(root);
        } catch (error) {
            root.append(element("p", "stepper-broken", "This stepper could not be drawn: " + error));
        }
    }
    for (const root of document.querySelectorAll("div.stepper-pair")) pair(root);
})();
