! Floats: escape-time Mandelbrot over a grid, counting the points that stay bounded.
doit
Object subclass: 'BenchFloats' instVarNames: #() classVars: #() classInstVars: #()
  poolDictionaries: #() inDictionary: UserGlobals options: #()
%
category: 'bench'
method: BenchFloats
run
  | size inside |
  size := 120.
  inside := 0.
  0 to: size - 1 do: [:y | | ci |
    ci := (2.0 * y / size) - 1.0.
    0 to: size - 1 do: [:x | | cr zr zi i escaped |
      cr := (2.0 * x / size) - 1.5.
      zr := 0.0. zi := 0.0. i := 0. escaped := false.
      [i < 50 and: [escaped not]] whileTrue: [ | tr |
        tr := zr * zr - (zi * zi) + cr.
        zi := 2.0 * zr * zi + ci.
        zr := tr.
        zr * zr + (zi * zi) > 4.0 ifTrue: [escaped := true].
        i := i + 1].
      escaped ifFalse: [inside := inside + 1]]].
  ^ inside
%
