! Interval: its comment, then its instance and class methods.

doit
Interval comment: 'An arithmetic progression from, to, by; what to:by: answers.'.
true
%

category: 'Private'
method: Interval
_setFrom: start to: stop by: step
	from := start.
	to := stop.
	by := step
%

category: 'Accessing'
method: Interval
first
	"The first element; an empty receiver signals the index error of at: 1."
	^ self at: 1
%

category: 'Accessing'
method: Interval
increment
	^ by
%

category: 'Accessing'
method: Interval
size
	by > 0
		ifTrue: [to < from ifTrue: [^ 0]. ^ to - from // by + 1]
		ifFalse: [from < to ifTrue: [^ 0]. ^ from - to // by negated + 1]
%

category: 'Accessing'
method: Interval
at: anIndex
	(anIndex isInteger and: [anIndex between: 1 and: self size])
		ifFalse: [^ self _errorIndexOutOfRange: anIndex].
	^ from + (anIndex - 1 * by)
%

category: 'Accessing'
method: Interval
at: anIndex put: anObject
	^ self shouldNotImplement
%

category: 'Enumerating'
method: Interval
do: aBlock
	| i |
	i := from.
	by > 0
		ifTrue: [[i <= to] whileTrue: [aBlock value: i. i := i + by]]
		ifFalse: [[i >= to] whileTrue: [aBlock value: i. i := i + by]]
%

category: 'Private'
method: Interval
species
	^ Array
%

category: 'Comparing'
method: Interval
= anObject
	(anObject isKindOf: Interval) ifFalse: [^ false].
	^ self asArray = anObject asArray
%

category: 'Comparing'
method: Interval
hash
	^ (from hash bitXor: to hash) bitXor: by hash
%

category: 'Adding'
method: Interval
add: anObject
	^ self shouldNotImplement
%

category: 'Instance Creation'
classmethod: Interval
from: start to: stop by: step
	step = 0 ifTrue: [^ ArgumentError new signal: 'The step of an Interval must not be zero'].
	^ self basicNew _setFrom: start to: stop by: step
%

category: 'Instance Creation'
classmethod: Interval
from: start to: stop
	^ self from: start to: stop by: 1
%
