# Python 2, Middlebot (written for the tests in the style of the 2015 answers): reads
# "ATOM/ITEMS" with raw_input, plays near the middle of the ring, and uses / for indices
# (Python 2 floors between integers: len(ring)/2 is an int).
import random, sys

line = raw_input()
atom, items = line.split('/')
ring = items.split()
n = len(ring)
print >>sys.stderr, "ring of", n, "items"

def numbers(ring):
    return [int(x) for x in ring if x != '+']

if atom == '-':
    if n == 0:
        print 0, 'y'
    else:
        print n/2, 'y'
elif atom == 'C':
    if n == 0:
        print 0
    else:
        middle = ring[n/2]
        print "copying", `middle`
        print n/2
elif n < 2:
    print 0
else:
    best = max(numbers(ring) or [0])
    for i in xrange(n):
        if ring[i] == atom:
            print "next to an equal at", i
            print i
            break
    else:
        print random.randint(0 + len(ring)/2, len(ring) - 1)
