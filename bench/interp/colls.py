"""Collections: a queue, a hash map and a set under steady insertion and removal."""

from collections import deque


def run():
    total = 0
    for rep in range(240):
        queue = deque()
        table = {}
        seen = set()
        for i in range(1, 1001):
            queue.append(i)
            table[i % 97] = table.get(i % 97, 0) + i
            seen.add(i * 31 % 503)
        while queue:
            x = queue.popleft()
            if x in seen:
                total += 1
        for k in range(97):
            total += table.get(k, 0)
        total += len(seen)
    return total
