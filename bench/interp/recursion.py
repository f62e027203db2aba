"""Recursion: doubly recursive Fibonacci and Towers of Hanoi moving real disks."""


class Recursion:
    def __init__(self):
        self.piles = None
        self.moves = 0

    def fib(self, n):
        if n < 2:
            return n
        return self.fib(n - 1) + self.fib(n - 2)

    def move_disks(self, disks, source, dest):
        if disks == 1:
            self.move_top(source, dest)
            return
        other = 6 - source - dest
        self.move_disks(disks - 1, source, other)
        self.move_top(source, dest)
        self.move_disks(disks - 1, other, dest)

    def move_top(self, source, dest):
        disk = self.piles[source].pop()
        pile = self.piles[dest]
        if pile and pile[-1] < disk:
            raise RuntimeError("cannot put a big disk on a small one")
        pile.append(disk)
        self.moves += 1

    def towers(self, disks):
        self.piles = [None, list(range(disks, 0, -1)), [], []]
        self.moves = 0
        self.move_disks(disks, 1, 3)
        return self.moves


def run():
    r = Recursion()
    return r.fib(25) + r.towers(17)
