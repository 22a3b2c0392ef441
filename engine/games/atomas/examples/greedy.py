"""Atomas example: try every answer on a copy of the ring and keep the best one.

A position is worth the points the move scores now, plus what its pluses could fuse
later (equal atoms standing symmetrically around a plus), minus a cost per item.
"""


def react(ring):
    """Play out every plus that can react; return (ring, points)."""
    ring, points = list(ring), 0
    while len(ring) >= 3:
        n = len(ring)
        for i, item in enumerate(ring):
            left, right = ring[i - 1], ring[(i + 1) % n]
            if item == "+" and left != "+" and left == right:
                points += round(1.5 * left + 1.25)
                ring, pos = absorb(ring, i, left + 1)
                ring, more = grow(ring, pos)
                points += more
                break
        else:
            break
    return ring, points


def absorb(ring, pos, value):
    """Replace ring[pos] and its two neighbours by value; return (ring, its position)."""
    n = len(ring)
    left, right = (pos - 1) % n, (pos + 1) % n
    ring = list(ring)
    ring[pos] = value
    for j in sorted((left, right), reverse=True):
        del ring[j]
    return ring, pos - (left < pos) - (right < pos)


def grow(ring, pos):
    points, matches = 0, 1
    while len(ring) >= 3:
        n = len(ring)
        left, right, value = ring[pos - 1], ring[(pos + 1) % n], ring[pos]
        if left == "+" or left != right:
            break
        value = value + 2 if left >= value else value + 1
        outer = value - 1 if left < value else left
        points += (outer - value + 3) * matches - value + 3 * outer + 3
        matches += 1
        ring, pos = absorb(ring, pos, value)
    return ring, points


def potential(ring):
    """Points a plus could still make: symmetric equal pairs around each plus."""
    total, n = 0, len(ring)
    for i, item in enumerate(ring):
        if item != "+":
            continue
        for k in range(1, n // 2 + 1):
            left, right = ring[(i - k) % n], ring[(i + k) % n]
            if left == "+" or left != right or (i - k) % n == (i + k) % n:
                break
            total += 3 * left
    return total


def worth(ring, points):
    return points + 0.6 * potential(ring) - 4 * len(ring) - 60 * (len(ring) >= 17)


def place(ring, atom, gap):
    ring = list(ring)
    ring.insert(gap + 1 if ring else 0, atom)
    return ring


def move(view):
    board, atom = list(view.board), view.atom
    n = len(board)
    if atom == "C":
        numbers = [i for i, x in enumerate(board) if x != "+"]
        return max(numbers, key=lambda i: board[i]) if numbers else 0
    if atom == "-":
        best, answer = None, (0, True)
        for i in range(n):
            rest, points = react(board[:i] + board[i + 1:])
            value = worth(rest, points)
            if board[i] == "+":
                value -= 40
            if best is None or value > best:
                best, answer = value, (i, True)
        return answer
    if atom == "B":
        atom = "+"
    best, answer = None, 0
    for gap in range(max(n, 1)):
        ring, points = react(place(board, atom, gap))
        value = worth(ring, points)
        if best is None or value > best:
            best, answer = value, gap
    return answer
