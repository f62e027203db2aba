! Strings: building text on a stream, reversing, searching and comparing it.
doit
Object subclass: 'BenchStrings' instVarNames: #() classVars: #() classInstVars: #()
  poolDictionaries: #() inDictionary: UserGlobals options: #()
%
category: 'bench'
method: BenchStrings
run
  | total words |
  total := 0.
  words := #('alpha' 'beta' 'gamma' 'delta' 'epsilon' 'zeta' 'eta' 'theta').
  1 to: 2400 do: [:rep | | out text rev upper |
    out := WriteStream on: String new.
    1 to: 100 do: [:i |
      out nextPutAll: (words at: i \\ 8 + 1); nextPutAll: i printString; nextPut: $ ].
    text := out contents.
    total := total + text size.
    rev := text reverse.
    rev last = text first ifTrue: [total := total + 1].
    total := total + (text occurrencesOf: $a).
    upper := text asUppercase.
    (upper at: 1) = (text at: 1) asUppercase ifTrue: [total := total + 1].
    total := total + (text indexOfSubCollection: 'theta99' startingAt: 1 ifAbsent: [0])].
  ^ total
%
