! Non-local returns: searching collections by returning from inside a loop block.
doit
Object subclass: 'BenchNlr' instVarNames: #(items) classVars: #() classInstVars: #()
  poolDictionaries: #() inDictionary: UserGlobals options: #()
%
category: 'bench'
method: BenchNlr
indexOfFirst: value
  items doWithIndex: [:each :i | each = value ifTrue: [^ i]].
  ^ 0
%
method: BenchNlr
firstAbove: limit
  items do: [:each | each > limit ifTrue: [^ each]].
  ^ nil
%
method: BenchNlr
run
  | total |
  items := (1 to: 300) collect: [:i | i * 7919 \\ 1000].
  total := 0.
  0 to: 7999 do: [:rep | | above |
    total := total + (self indexOfFirst: rep \\ 1000).
    above := self firstAbove: 990 - (rep \\ 50).
    above isNil ifFalse: [total := total + above]].
  ^ total
%
