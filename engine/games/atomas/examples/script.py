# Atomas example: a script bot, as posted on the challenge site. It reads one line
# "ATOM/ITEMS" and prints its answer; it runs afresh for every move.
import random

atom, _, items = input().partition("/")
n = len(items.split())
if atom == "-":
    print(random.randrange(n), "y")
elif atom == "C":
    print(random.randrange(n))
else:
    print(random.randrange(max(n, 1)))
