"""Constraint solving: one-way constraints (equal, scale, sum) over a network of
variables; every edit re-propagates through a worklist with visit marks."""


class Variable:
    __slots__ = ("value", "constraints", "mark")

    def __init__(self, value):
        self.value = value
        self.constraints = []
        self.mark = 0


class Constraint:
    def outputs(self):
        return [self.output]


class Equal(Constraint):
    def __init__(self, a, b):
        self.input = a
        self.output = b
        a.constraints.append(self)

    def execute(self):
        self.output.value = self.input.value


class Scale(Constraint):
    def __init__(self, src, scale, offset, dst):
        self.input = src
        self.scale = scale
        self.offset = offset
        self.output = dst
        src.constraints.append(self)

    def execute(self):
        self.output.value = self.input.value * self.scale.value + self.offset.value


class Sum(Constraint):
    def __init__(self, a, b, c):
        self.a = a
        self.b = b
        self.output = c
        a.constraints.append(self)
        b.constraints.append(self)

    def execute(self):
        self.output.value = self.a.value + self.b.value


class Network:
    def __init__(self, n):
        self.mark = 0
        self.chain = [Variable(0) for _ in range(n)]
        for i in range(n - 1):
            Equal(self.chain[i], self.chain[i + 1])
        self.scale = Variable(10)
        self.offset = Variable(1000)
        self.sources = [Variable(i) for i in range(n)]
        self.dests = [Variable(0) for _ in range(n)]
        self.totals = [Variable(0) for _ in range(n)]
        for i in range(n):
            Scale(self.sources[i], self.scale, self.offset, self.dests[i])
            Sum(self.dests[i], self.chain[i], self.totals[i])

    def set(self, var, value):
        var.value = value
        self.mark += 1
        mark = self.mark
        work = [var]
        var.mark = mark
        i = 0
        while i < len(work):
            v = work[i]
            i += 1
            for c in v.constraints:
                c.execute()
                for out in c.outputs():
                    if out.mark != mark:
                        out.mark = mark
                        work.append(out)


def run():
    n = 100
    net = Network(n)
    check = 0
    for rep in range(1, 401):
        net.set(net.chain[0], rep)
        if net.chain[-1].value != rep:
            raise RuntimeError("chain did not propagate")
        for i in range(n):
            net.set(net.sources[i], i + rep)
        check += net.totals[n - 1].value + net.dests[0].value
    return check
