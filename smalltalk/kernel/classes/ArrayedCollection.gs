! ArrayedCollection: its comment, then its instance and class methods.

doit
ArrayedCollection comment: 'The abstract superclass of the sequenceable collections whose elements live in
the object itself (Array, ByteArray, the strings): creation with new:,
with:..., new:withAll:, and copying by index.'.
true
%

category: 'Copying'
method: ArrayedCollection
copyFrom: startIndex to: stopIndex
	<primitive: 209>
	^ OutOfRange new signal: 'copyFrom:to: indices out of range'
%

category: 'Copying'
method: ArrayedCollection
reverse
	<primitive: 225>
	^ self _primitiveFailed: #reverse
%

category: 'Copying'
method: ArrayedCollection
reversed
	<primitive: 225>
	^ self _primitiveFailed: #reversed
%

category: 'Searching'
method: ArrayedCollection
indexOf: anObject
	<primitive: 210>
	^ 0
%

category: 'Searching'
method: ArrayedCollection
occurrencesOf: anObject
	<primitive: 231>
	^ 0
%

category: 'Accessing'
method: ArrayedCollection
replaceFrom: startIndex to: stopIndex with: aCollection startingAt: repStart
	"The primitive copies from another indexable collection. Any other
	SequenceableCollection (an OrderedCollection, an Interval) is copied
	element by element once the whole range is known to fit, so a failure
	changes nothing."
	<primitive: 222>
	((aCollection isKindOf: SequenceableCollection)
		and: [(aCollection isKindOf: ArrayedCollection) not
		and: [(startIndex isKindOf: SmallInteger) and: [(stopIndex isKindOf: SmallInteger)
		and: [(repStart isKindOf: SmallInteger) and: [startIndex >= 1 and: [repStart >= 1
		and: [stopIndex <= self size and: [repStart + stopIndex - startIndex <= aCollection size]]]]]]]])
			ifTrue: [^ super replaceFrom: startIndex to: stopIndex with: aCollection startingAt: repStart].
	^ OutOfRange new signal: 'replaceFrom:to:with:startingAt: out of range'
%

category: 'Accessing'
method: ArrayedCollection
size
	<primitive: 21>
	^ self basicSize
%

category: 'Copying'
method: ArrayedCollection
copyWith: anObject
	| result n |
	n := self size.
	result := self species new: n + 1.
	result replaceFrom: 1 to: n with: self startingAt: 1.
	result at: n + 1 put: anObject.
	^ result
%

category: 'Private'
method: ArrayedCollection
_basicSize: anInteger
	"Sets the number of indexable slots in place (new slots are nil or 0)."
	<primitive: 29>
	^ ArgumentError new signal: 'cannot resize ', self describeClassName, ' to ', anInteger printString
%

category: 'Instance Creation'
classmethod: ArrayedCollection
new
	^ self new: 0
%

category: 'Instance Creation'
classmethod: ArrayedCollection
new: aSize withAll: anObject
	| result |
	<primitive: 426>
	result := self new: aSize.
	1 to: aSize do: [:i | result at: i put: anObject].
	^ result
%

category: 'Instance Creation'
classmethod: ArrayedCollection
withAll: aCollection
	| result index |
	result := self new: aCollection size.
	index := 0.
	aCollection do: [:each | result at: (index := index + 1) put: each].
	^ result
%

category: 'Instance Creation'
classmethod: ArrayedCollection
with: first
	<primitive: 417>
	^ (self new: 1) at: 1 put: first; yourself
%

category: 'Instance Creation'
classmethod: ArrayedCollection
with: first with: second
	<primitive: 417>
	^ (self new: 2) at: 1 put: first; at: 2 put: second; yourself
%

category: 'Instance Creation'
classmethod: ArrayedCollection
with: first with: second with: third
	<primitive: 417>
	^ (self new: 3) at: 1 put: first; at: 2 put: second; at: 3 put: third; yourself
%

category: 'Instance Creation'
classmethod: ArrayedCollection
with: first with: second with: third with: fourth
	<primitive: 417>
	^ (self new: 4) at: 1 put: first; at: 2 put: second; at: 3 put: third; at: 4 put: fourth; yourself
%

category: 'Instance Creation'
classmethod: ArrayedCollection
with: first with: second with: third with: fourth with: fifth
	<primitive: 417>
	^ (self new: 5) at: 1 put: first; at: 2 put: second; at: 3 put: third; at: 4 put: fourth;
		at: 5 put: fifth; yourself
%

category: 'Instance Creation'
classmethod: ArrayedCollection
with: first with: second with: third with: fourth with: fifth with: sixth
	<primitive: 417>
	^ (self new: 6) at: 1 put: first; at: 2 put: second; at: 3 put: third; at: 4 put: fourth;
		at: 5 put: fifth; at: 6 put: sixth; yourself
%
