! Constraint solving: one-way constraints (equal, scale, sum) over a network of
! variables; every edit re-propagates through a worklist with visit marks.
doit
Object subclass: 'BenchVariable' instVarNames: #(value constraints mark) classVars: #() classInstVars: #()
  poolDictionaries: #() inDictionary: UserGlobals options: #()
%
doit
Object subclass: 'BenchConstraint' instVarNames: #(output) classVars: #() classInstVars: #()
  poolDictionaries: #() inDictionary: UserGlobals options: #()
%
doit
BenchConstraint subclass: 'BenchEqual' instVarNames: #(input) classVars: #() classInstVars: #()
  poolDictionaries: #() inDictionary: UserGlobals options: #()
%
doit
BenchConstraint subclass: 'BenchScale' instVarNames: #(input scale offset) classVars: #() classInstVars: #()
  poolDictionaries: #() inDictionary: UserGlobals options: #()
%
doit
BenchConstraint subclass: 'BenchSum' instVarNames: #(a b) classVars: #() classInstVars: #()
  poolDictionaries: #() inDictionary: UserGlobals options: #()
%
doit
Object subclass: 'BenchConstraints' instVarNames: #(mark chain scale offset sources dests totals) classVars: #() classInstVars: #()
  poolDictionaries: #() inDictionary: UserGlobals options: #()
%
category: 'bench'
classmethod: BenchVariable
value: v
  ^ self new setValue: v
%
method: BenchVariable
setValue: v
  value := v. constraints := OrderedCollection new. mark := 0
%
method: BenchVariable
value
  ^ value
%
method: BenchVariable
value: v
  value := v
%
method: BenchVariable
constraints
  ^ constraints
%
method: BenchVariable
mark
  ^ mark
%
method: BenchVariable
mark: n
  mark := n
%
method: BenchConstraint
outputs
  ^ Array with: output
%
classmethod: BenchEqual
from: a to: b
  ^ self new setFrom: a to: b
%
method: BenchEqual
setFrom: a to: b
  input := a. output := b. a constraints add: self
%
method: BenchEqual
execute
  output value: input value
%
classmethod: BenchScale
from: src scale: s offset: o to: dst
  ^ self new setFrom: src scale: s offset: o to: dst
%
method: BenchScale
setFrom: src scale: s offset: o to: dst
  input := src. scale := s. offset := o. output := dst.
  src constraints add: self
%
method: BenchScale
execute
  output value: input value * scale value + offset value
%
classmethod: BenchSum
of: x and: y into: z
  ^ self new setOf: x and: y into: z
%
method: BenchSum
setOf: x and: y into: z
  a := x. b := y. output := z.
  x constraints add: self.
  y constraints add: self
%
method: BenchSum
execute
  output value: a value + b value
%
method: BenchConstraints
setUp: n
  mark := 0.
  chain := (1 to: n) collect: [:i | BenchVariable value: 0].
  1 to: n - 1 do: [:i | BenchEqual from: (chain at: i) to: (chain at: i + 1)].
  scale := BenchVariable value: 10.
  offset := BenchVariable value: 1000.
  sources := (1 to: n) collect: [:i | BenchVariable value: i - 1].
  dests := (1 to: n) collect: [:i | BenchVariable value: 0].
  totals := (1 to: n) collect: [:i | BenchVariable value: 0].
  1 to: n do: [:i |
    BenchScale from: (sources at: i) scale: scale offset: offset to: (dests at: i).
    BenchSum of: (dests at: i) and: (chain at: i) into: (totals at: i)]
%
method: BenchConstraints
set: var to: v
  | work i |
  var value: v.
  mark := mark + 1.
  work := OrderedCollection with: var.
  var mark: mark.
  i := 1.
  [i <= work size] whileTrue: [ | each |
    each := work at: i.
    i := i + 1.
    each constraints do: [:c |
      c execute.
      c outputs do: [:out |
        out mark ~= mark ifTrue: [out mark: mark. work add: out]]]]
%
method: BenchConstraints
run
  | n check |
  n := 100.
  self setUp: n.
  check := 0.
  1 to: 400 do: [:rep |
    self set: (chain at: 1) to: rep.
    (chain at: n) value = rep ifFalse: [^ self error: 'chain did not propagate'].
    1 to: n do: [:i | self set: (sources at: i) to: i - 1 + rep].
    check := check + (totals at: n) value + (dests at: 1) value].
  ^ check
%
