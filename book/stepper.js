// The stepper: a recorded race, statement by statement. Each `<div class="stepper">` in a
// chapter holds the JSON of a scenario's statements (lessons/NN-…/statements/*.snap, past
// insta's header) in a `<script type="application/json">`; this draws it as one column per
// session and one row per statement, shown up to the current step, with Previous, Next and a
// slider (and the arrow keys, once the stepper has focus). A statement that waited shows an
// arrow from its session to the session it waited on. `data-mark="worker-2 waits on
// worker-1"` marks the step the chapter's text talks about. Without JavaScript nothing is
// drawn, and the chapter's static trace, just above, tells the same story.
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

    // The step a mark names: the first statement of SESSION that waited on HOLDER.
    function markedStep(statements, mark) {
        const words = /^(\S+) waits on (\S+)$/.exec(mark || "");
        if (!words) return -1;
        return statements.findIndex(
            (s) => s.session === words[1] && s.waited_on.includes(words[2]),
        );
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
        root.setAttribute("aria-label", "The race, statement by statement");
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
        show(1);
    }

    for (const root of document.querySelectorAll("div.stepper")) {
        try {
            build(root);
        } catch (error) {
            root.append(element("p", "stepper-broken", "This stepper could not be drawn: " + error));
        }
    }
})();
