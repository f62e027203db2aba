! SortedCollection: its comment, then its instance and class methods.

doit
SortedCollection comment: 'An ordered collection kept sorted by its sort block (by default [:a :b | a <=
b]).'.
true
%

category: 'Private'
method: SortedCollection
_setSortBlock: aBlock
	sortBlock := aBlock
%

category: 'Accessing'
method: SortedCollection
sortBlock
	^ sortBlock
%

category: 'Accessing'
method: SortedCollection
sortBlock: aBlock
	| elements |
	elements := self asArray.
	sortBlock := aBlock.
	self _initialize: elements size.
	self addAll: elements
%

category: 'Adding'
method: SortedCollection
add: anObject
	"Inserts after every element that sorts before or with anObject, so equal elements keep their order."
	| low high mid |
	low := 1.
	high := self size.
	[low <= high] whileTrue: [
		mid := (low + high) // 2.
		(sortBlock value: (self at: mid) value: anObject)
			ifTrue: [low := mid + 1]
			ifFalse: [high := mid - 1]].
	^ super add: anObject beforeIndex: low
%

category: 'Adding'
method: SortedCollection
addAll: aCollection
	"Merges aCollection in with one sort rather than one insertion per element."
	| all |
	aCollection size < 4 ifTrue: [aCollection do: [:each | self add: each]. ^ aCollection].
	all := (OrderedCollection withAll: self) addAll: aCollection; yourself.
	all := all _asArraySortedBy: sortBlock.
	self _initialize: all size.
	all do: [:each | super addLast: each].
	^ aCollection
%

category: 'Adding'
method: SortedCollection
addFirst: anObject
	^ self shouldNotImplement
%

category: 'Adding'
method: SortedCollection
addLast: anObject
	^ self add: anObject
%

category: 'Adding'
method: SortedCollection
at: anIndex put: anObject
	^ self shouldNotImplement
%

category: 'Adding'
method: SortedCollection
add: anObject beforeIndex: anIndex
	^ self shouldNotImplement
%

category: 'Enumerating'
method: SortedCollection
collect: aBlock
	| result |
	result := OrderedCollection new: self size.
	self do: [:each | result addLast: (aBlock value: each)].
	^ result
%

category: 'Enumerating'
method: SortedCollection
select: aBlock
	| result |
	result := SortedCollection sortBlock: sortBlock.
	self do: [:each | (aBlock value: each) ifTrue: [result add: each]].
	^ result
%

category: 'Copying'
method: SortedCollection
reverse
	| result |
	result := OrderedCollection new: self size.
	self reverseDo: [:each | result addLast: each].
	^ result
%

category: 'Copying'
method: SortedCollection
copyFrom: start to: stop
	| result |
	result := SortedCollection sortBlock: sortBlock.
	start to: stop do: [:i | result add: (self at: i)].
	^ result
%

category: 'Converting'
method: SortedCollection
asSortedCollection
	^ self copy
%

category: 'Accessing'
method: SortedCollection
median
	^ self at: self size + 1 // 2
%

category: 'Instance Creation'
classmethod: SortedCollection
new: aCapacity
	^ (super new: aCapacity) _setSortBlock: [:a :b | a <= b]
%

category: 'Instance Creation'
classmethod: SortedCollection
sortBlock: aBlock
	^ self new _setSortBlock: aBlock
%
