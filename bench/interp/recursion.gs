! Recursion: doubly recursive Fibonacci and Towers of Hanoi moving real disks.
doit
Object subclass: 'BenchRecursion' instVarNames: #(piles moves) classVars: #() classInstVars: #()
  poolDictionaries: #() inDictionary: UserGlobals options: #()
%
category: 'bench'
method: BenchRecursion
fib: n
  n < 2 ifTrue: [^ n].
  ^ (self fib: n - 1) + (self fib: n - 2)
%
method: BenchRecursion
moveDisks: disks from: source to: dest
  | other |
  disks = 1 ifTrue: [^ self moveTopFrom: source to: dest].
  other := 6 - source - dest.
  self moveDisks: disks - 1 from: source to: other.
  self moveTopFrom: source to: dest.
  self moveDisks: disks - 1 from: other to: dest
%
method: BenchRecursion
moveTopFrom: source to: dest
  | disk pile |
  disk := (piles at: source) removeLast.
  pile := piles at: dest.
  (pile notEmpty and: [pile last < disk])
    ifTrue: [^ self error: 'cannot put a big disk on a small one'].
  pile addLast: disk.
  moves := moves + 1
%
method: BenchRecursion
towers: disks
  piles := Array new: 3.
  1 to: 3 do: [:i | piles at: i put: OrderedCollection new].
  disks to: 1 by: -1 do: [:d | (piles at: 1) addLast: d].
  moves := 0.
  self moveDisks: disks from: 1 to: 3.
  ^ moves
%
method: BenchRecursion
run
  ^ (self fib: 25) + (self towers: 17)
%
