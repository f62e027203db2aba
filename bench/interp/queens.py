"""Backtracking search: counting every solution of the eight queens problem."""


class Queens:
    def __init__(self, n):
        self.n = n
        self.rows = [True] * n
        self.up = [True] * (2 * n - 1)
        self.down = [True] * (2 * n - 1)
        self.solutions = 0

    def place(self, col):
        n = self.n
        for row in range(n):
            if self.rows[row] and self.up[row + col] and self.down[row - col + n - 1]:
                self.rows[row] = self.up[row + col] = self.down[row - col + n - 1] = False
                if col == n - 1:
                    self.solutions += 1
                else:
                    self.place(col + 1)
                self.rows[row] = self.up[row + col] = self.down[row - col + n - 1] = True


def run():
    total = 0
    for _ in range(50):
        q = Queens(8)
        q.place(0)
        total += q.solutions
    return total
