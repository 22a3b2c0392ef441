# Python 2, Digger (written for the tests in the style of the 2015 answers): started afresh
# every turn with its view in sys.argv[1]; counts its turns in storage.txt (written with
# backticks), walks toward the middle of its view's open row and rests every third turn.
import sys

rows = sys.argv[1].split('\n')
for r in xrange(len(rows)):
    if 's' in rows[r] or 'S' in rows[r]:
        row = r
        col = max(rows[r].find('s'), rows[r].find('S'))
try:
    turn = int(open('storage.txt').read())
except IOError, e:
    turn = 0
except ValueError:
    turn = 0
open('storage.txt', 'w').write(`turn + 1`)

middle = len(rows[row]) / 2
if turn % 3 == 2:
    print 'rest'
elif rows[row][col + 1:].startswith('.') and col < middle:
    print 'move right'
elif rows[row][:col].endswith('.') and col > middle:
    print 'move left'
else:
    print 'drop ' + ['left', 'right'][turn / 2 % 2]
