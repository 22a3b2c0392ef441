# Python 2, Spreader (written for the tests in the style of the 2015 answers): one process
# a game, reading lines with input() in a loop; moves a piece next to the neutrals it can
# convert, the middle one of the best moves (an index computed with /).
import sys

first = input().split()
size, players, me = int(first[1]), int(first[2]), int(first[3])
board = {}

def around(x, y):
    return [((x + 1) % size, y), ((x - 1) % size, y), (x, (y + 1) % size), (x, (y - 1) % size)]

def gain(square):
    return len([p for p in around(*square) if board.has_key(p) and board[p] == 5])

while True:
    line = input()
    if line != 'M':
        x, y, c = map(int, line.split())
        board[x, y] = c
        continue
    mine = [p for p, c in board.iteritems() if c == me]
    moves = []
    for p in mine:
        for d in around(*p):
            if board.get(d, 0) == 0:
                moves.extend([(gain(d), s, d) for s in mine if s != p])
    if not moves:
        print 0, 0, 0, 0
        continue
    moves.sort()
    best = [m for m in moves if m[0] == moves[-1][0]]
    score, (x0, y0), (x1, y1) = best[len(best) / 2]
    print >>sys.stderr, "%d moves, %d best" % (len(moves), len(best))
    print x0, y0, x1, y1
