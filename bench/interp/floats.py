"""Floats: escape-time Mandelbrot over a grid, counting the points that stay bounded."""


def run():
    size = 120
    inside = 0
    for y in range(size):
        ci = (2.0 * y / size) - 1.0
        for x in range(size):
            cr = (2.0 * x / size) - 1.5
            zr = 0.0
            zi = 0.0
            i = 0
            escaped = False
            while i < 50 and not escaped:
                tr = zr * zr - zi * zi + cr
                zi = 2.0 * zr * zi + ci
                zr = tr
                if zr * zr + zi * zi > 4.0:
                    escaped = True
                i += 1
            if not escaped:
                inside += 1
    return inside
