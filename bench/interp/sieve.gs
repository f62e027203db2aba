! Sieve of Eratosthenes over an Array of flags: loops over arrays.
doit
Object subclass: 'BenchSieve' instVarNames: #() classVars: #() classInstVars: #()
  poolDictionaries: #() inDictionary: UserGlobals options: #()
%
category: 'bench'
method: BenchSieve
run
  | total |
  total := 0.
  1 to: 60 do: [:rep | | size flags count |
    size := 8190.
    flags := Array new: size withAll: true.
    count := 0.
    2 to: size do: [:i |
      (flags at: i) ifTrue: [ | k |
        count := count + 1.
        k := i + i.
        [k <= size] whileTrue: [flags at: k put: false. k := k + i]]].
    total := total + count].
  ^ total
%
