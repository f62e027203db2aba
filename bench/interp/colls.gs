! Collections: a queue, a hash map and a set under steady insertion and removal.
doit
Object subclass: 'BenchCollections' instVarNames: #() classVars: #() classInstVars: #()
  poolDictionaries: #() inDictionary: UserGlobals options: #()
%
category: 'bench'
method: BenchCollections
run
  | total |
  total := 0.
  1 to: 240 do: [:rep | | queue table seen |
    queue := OrderedCollection new.
    table := Dictionary new.
    seen := Set new.
    1 to: 1000 do: [:i |
      queue addLast: i.
      table at: i \\ 97 put: (table at: i \\ 97 ifAbsent: [0]) + i.
      seen add: i * 31 \\ 503].
    [queue isEmpty] whileFalse: [ | x |
      x := queue removeFirst.
      (seen includes: x) ifTrue: [total := total + 1]].
    0 to: 96 do: [:k | total := total + (table at: k ifAbsent: [0])].
    total := total + seen size].
  ^ total
%
