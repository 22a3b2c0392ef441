# Flit example: a script bot, as posted on the challenge site. It keeps its own board
# from the "x y c" lines, and on "M" prints a random valid move.
import random

_, size, players, me = input().split()
size, me = int(size), int(me)
board = {}


def neighbours(x, y):
    return [((x + 1) % size, y), ((x - 1) % size, y), (x, (y + 1) % size), (x, (y - 1) % size)]


while True:
    line = input()
    if line != "M":
        x, y, c = map(int, line.split())
        board[x, y] = c
        continue
    mine = [p for p, c in board.items() if c == me]
    options = []
    for piece in mine:
        for dst in neighbours(*piece):
            if board.get(dst, 0) == 0:
                for src in mine:
                    if src != piece:
                        options.append((src, dst))
    if options:
        (x0, y0), (x1, y1) = random.choice(options)
        print(x0, y0, x1, y1)
    else:
        print("0 0 0 0")
