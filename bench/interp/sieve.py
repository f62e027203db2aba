"""Sieve of Eratosthenes over a list of flags: loops over arrays."""


def run():
    total = 0
    for _ in range(60):
        size = 8190
        flags = [True] * size
        count = 0
        for i in range(2, size + 1):
            if flags[i - 1]:
                count += 1
                k = i + i
                while k <= size:
                    flags[k - 1] = False
                    k += i
        total += count
    return total
