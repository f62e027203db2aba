! Backtracking search: counting every solution of the eight queens problem.
doit
Object subclass: 'BenchQueens' instVarNames: #(n rows up down solutions) classVars: #() classInstVars: #()
  poolDictionaries: #() inDictionary: UserGlobals options: #()
%
category: 'bench'
method: BenchQueens
setUp: size
  n := size.
  rows := Array new: n withAll: true.
  up := Array new: 2 * n - 1 withAll: true.
  down := Array new: 2 * n - 1 withAll: true.
  solutions := 0
%
method: BenchQueens
place: col
  1 to: n do: [:row |
    ((rows at: row) and: [(up at: row + col - 1) and: [down at: row - col + n]]) ifTrue: [
      rows at: row put: false. up at: row + col - 1 put: false. down at: row - col + n put: false.
      col = n
        ifTrue: [solutions := solutions + 1]
        ifFalse: [self place: col + 1].
      rows at: row put: true. up at: row + col - 1 put: true. down at: row - col + n put: true]]
%
method: BenchQueens
run
  | total |
  total := 0.
  50 timesRepeat: [self setUp: 8. self place: 1. total := total + solutions].
  ^ total
%
