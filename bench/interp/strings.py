"""Strings: building text on a stream, reversing, searching and comparing it."""

import io


def run():
    total = 0
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
    for rep in range(2400):
        out = io.StringIO()
        for i in range(1, 101):
            out.write(words[i % 8])
            out.write(str(i))
            out.write(" ")
        text = out.getvalue()
        total += len(text)
        rev = text[::-1]
        if rev[-1] == text[0]:
            total += 1
        total += text.count("a")
        upper = text.upper()
        if upper[0] == text[0].upper():
            total += 1
        total += text.find("theta99") + 1
    return total
