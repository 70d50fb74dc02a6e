"""Runs the book's by-hand pages as printed: see .ci/walk-through, which starts this."""
import difflib, os, queue, re, signal, subprocess, sys, threading

KEEPS_RUNNING = "<!-- walk-through: keeps running -->"
SO_FAR = "<!-- walk-through: printed so far by the first block that keeps running -->"
PROMPT_IS_BACK = "<<walk-through: the prompt is back>>"
# A build comes first (cargo run), so a command kept running may take minutes to say a word.
FIRST_WORDS_DEADLINE, PROMPT_DEADLINE = 600, 60


# What `cargo workbook serve` and `deliver` print while they build first: the build a reader's
# first run makes, which the page does not show (a later run prints none of it).
BUILDING = re.compile(r"^(building .* …|\s+\d+ \S+ v\d+\.\d+\.\d+\S*( \(.*\))?)$")


def not_building(lines):
    return [line for line in lines if not BUILDING.match(line)]


def lines_of(text):
    return [re.sub(r"^date: .*", "date: (any)", line.rstrip())
            for line in text.rstrip("\n").split("\n")]


class Background:
    """A block that keeps running: its output, line by line, as it comes."""

    def __init__(self, body):
        self.process = subprocess.Popen(
            ["bash", "-c", body], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, start_new_session=True)
        self.lines, self.started_with = queue.Queue(), 0
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for line in self.process.stdout:
            if not BUILDING.match(line.rstrip("\n")):
                self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def take(self, count, deadline):
        said = []
        while len(said) < count:
            try:
                line = self.lines.get(timeout=deadline)
            except queue.Empty:
                break
            if line is None:
                break
            said.append(line)
        return said

    def type(self, block):
        self.process.stdin.write(block + f"\\echo {PROMPT_IS_BACK}\n")
        self.process.stdin.flush()
        said = []
        while (line := self.take(1, PROMPT_DEADLINE)) and line[0] != PROMPT_IS_BACK:
            said.append(line[0])
        return said

    def stop(self):
        if self.process.stdin:
            self.process.stdin.close()
        try:
            os.killpg(self.process.pid, signal.SIGINT)
            self.process.wait(timeout=10)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


def walk(page):
    text = open(page).read()
    blocks = [(m.group(1), m.group(2), text[:m.start()].rstrip().endswith(KEEPS_RUNNING),
               text[:m.start()].rstrip().endswith(SO_FAR))
              for m in re.finditer(r"^```(\w*)\n(.*?)^```\n", text, re.M | re.S)]
    failed, ran, running = False, 0, []

    def differs(body, shown, said):
        shown, said = lines_of(shown), [lines_of(line)[0] for line in said] or [""]
        if said == shown:
            return False
        print(f"{page}: this block does not print what the page shows:\n{body}")
        sys.stdout.writelines(l + "\n" for l in difflib.unified_diff(shown, said, "page", "now", lineterm=""))
        return True

    try:
        for i, (kind, body, keeps_running, so_far) in enumerate(blocks):
            expected = None
            if i + 1 < len(blocks) and blocks[i + 1][0] == "console" and not blocks[i + 1][3]:
                expected = blocks[i + 1][1]
            if kind == "console" and so_far:
                first = running[0]
                said = first.take(len(lines_of(body)), PROMPT_DEADLINE)
                failed |= differs("(the first block that keeps running)", body, said)
            elif kind == "sh" and keeps_running:
                ran += 1
                running.append(Background(body))
                if expected is not None:
                    count = len(lines_of(expected))
                    said = running[-1].take(count, FIRST_WORDS_DEADLINE)
                    running[-1].started_with = count
                    failed |= differs(body, expected, said)
            elif kind == "sql":
                ran += 1
                said = running[-1].type(body)
                if expected is not None:
                    failed |= differs(body, expected, said)
            elif kind == "sh":
                run = subprocess.run(["bash", "-c", "set -e\n" + body], stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
                ran += 1
                if expected is None:
                    if run.returncode != 0:
                        print(f"{page}: this block failed ({run.returncode}):\n{body}{run.stdout}")
                        failed = True
                    continue
                failed |= differs(body, expected, not_building(run.stdout.rstrip("\n").split("\n")))
    finally:
        for background in reversed(running):
            background.stop()
    print(f"{ran} command blocks of {page} run as printed")
    return failed


sys.exit(1 if any([walk(page) for page in sys.argv[1:]]) else 0)
