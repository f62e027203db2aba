"""Non-local returns: searching collections by returning from inside a loop body.

Python has no blocks, so the equivalent of a `^` out of a `do:` block is a
`return` out of a `for` loop inside a function called per search."""


class Finder:
    def __init__(self, items):
        self.items = items

    def index_of_first(self, predicate_value):
        for i, each in enumerate(self.items):
            if each == predicate_value:
                return i + 1
        return 0

    def first_above(self, limit):
        for each in self.items:
            if each > limit:
                return each
        return None


def run():
    items = [(i * 7919) % 1000 for i in range(1, 301)]
    f = Finder(items)
    total = 0
    for rep in range(8000):
        total += f.index_of_first(rep % 1000)
        above = f.first_above(990 - (rep % 50))
        if above is not None:
            total += above
    return total
