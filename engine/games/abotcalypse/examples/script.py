# aBOTcalypse example: a script bot, as posted on the original challenge. It is started
# afresh every turn with its view as the last command-line argument, keeps its memory in
# storage.txt in its working directory, and prints one line.
#
# It follows a build plan one step a turn (the step it is at is its memory): a rock in its
# own cell, rocks on both sides, then a roof two rocks thick (climb, drop, climb back down).
# Once built it rests, and starts the plan over when a meteor or a rock takes its roof or
# its floor away.
import sys

PLAN = ["drop down", "drop left", "drop right", "drop up", "move up", "drop up", "move down"]

rows = sys.argv[-1].split("\n")
row, col = next((r, c) for r, text in enumerate(rows) for c, char in enumerate(text) if char in "sS")

try:
    with open("storage.txt") as storage:
        step = int(storage.read())
except (OSError, ValueError):
    step = 0  # the first turn, or a memory that does not read

above = rows[row - 1][col] if row > 0 else "#"
if step >= len(PLAN) and (rows[row][col] != "S" or above != "&"):
    step = 0  # the roof or the floor was destroyed: build again
if step < len(PLAN):
    answer = PLAN[step]
    step += 1
else:
    answer = "rest"

with open("storage.txt", "w") as storage:
    storage.write(str(step))
print(answer)
