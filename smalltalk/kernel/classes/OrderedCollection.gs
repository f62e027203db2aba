! OrderedCollection: its comment, then its instance and class methods.

doit
OrderedCollection comment: 'A sequenceable collection that grows and shrinks at both ends (add:,
addFirst:, removeFirst, removeLast) and is indexed from 1.'.
true
%

category: 'Private'
method: OrderedCollection
_initialize: aCapacity
	<primitive: 423>
	array := Array new: (aCapacity max: 4).
	firstIndex := array size // 3 + 1.
	lastIndex := firstIndex - 1
%

category: 'Private'
method: OrderedCollection
_growAtEnd
	| newArray |
	<primitive: 409>
	newArray := Array new: array size * 2 + 4.
	newArray replaceFrom: firstIndex to: lastIndex with: array startingAt: firstIndex.
	array := newArray
%

category: 'Private'
method: OrderedCollection
_growAtFront
	| newArray shift |
	shift := array size + 4.
	newArray := Array new: array size + shift.
	newArray replaceFrom: firstIndex + shift to: lastIndex + shift with: array startingAt: firstIndex.
	firstIndex := firstIndex + shift.
	lastIndex := lastIndex + shift.
	array := newArray
%

category: 'Private'
method: OrderedCollection
_checkIndex: anIndex
	(anIndex isInteger and: [anIndex between: 1 and: lastIndex - firstIndex + 1])
		ifFalse: [^ self _errorIndexOutOfRange: anIndex].
	^ anIndex + firstIndex - 1
%

category: 'Accessing'
method: OrderedCollection
size
	<primitive: 416>
	^ lastIndex - firstIndex + 1
%

category: 'Accessing'
method: OrderedCollection
at: anIndex
	<primitive: 403>
	^ array at: (self _checkIndex: anIndex)
%

category: 'Accessing'
method: OrderedCollection
at: anIndex put: anObject
	<primitive: 404>
	^ array at: (self _checkIndex: anIndex) put: anObject
%

category: 'Enumerating'
method: OrderedCollection
do: aBlock
	<primitive: 405>
	firstIndex to: lastIndex do: [:i | aBlock value: (array at: i)]
%

category: 'Adding'
method: OrderedCollection
add: anObject
	<primitive: 400>
	lastIndex = array size ifTrue: [self _growAtEnd].
	lastIndex := lastIndex + 1.
	^ array at: lastIndex put: anObject
%

category: 'Testing'
method: OrderedCollection
isEmpty
	<primitive: 420>
	^ lastIndex < firstIndex
%

category: 'Testing'
method: OrderedCollection
notEmpty
	<primitive: 421>
	^ lastIndex >= firstIndex
%

category: 'Adding'
method: OrderedCollection
addLast: anObject
	<primitive: 400>
	lastIndex = array size ifTrue: [self _growAtEnd].
	lastIndex := lastIndex + 1.
	^ array at: lastIndex put: anObject
%

category: 'Adding'
method: OrderedCollection
addFirst: anObject
	firstIndex = 1 ifTrue: [self _growAtFront].
	firstIndex := firstIndex - 1.
	^ array at: firstIndex put: anObject
%

category: 'Adding'
method: OrderedCollection
addAllFirst: aCollection
	aCollection reverseDo: [:each | self addFirst: each].
	^ aCollection
%

category: 'Adding'
method: OrderedCollection
addAllLast: aCollection
	aCollection do: [:each | self addLast: each].
	^ aCollection
%

category: 'Adding'
method: OrderedCollection
add: anObject beforeIndex: anIndex
	"Inserts anObject so that it ends up at anIndex."
	(anIndex isInteger and: [anIndex between: 1 and: self size + 1])
		ifFalse: [^ self _errorIndexOutOfRange: anIndex].
	lastIndex = array size ifTrue: [self _growAtEnd].
	lastIndex := lastIndex + 1.
	lastIndex to: firstIndex + anIndex by: -1 do: [:i | array at: i put: (array at: i - 1)].
	array at: firstIndex + anIndex - 1 put: anObject.
	^ anObject
%

category: 'Adding'
method: OrderedCollection
insertObject: anObject at: anIndex
	^ self add: anObject beforeIndex: anIndex
%

category: 'Removing'
method: OrderedCollection
removeFirst
	| element |
	<primitive: 401>
	lastIndex < firstIndex ifTrue: [^ self _errorEmptyCollection].
	element := array at: firstIndex.
	array at: firstIndex put: nil.
	firstIndex := firstIndex + 1.
	^ element
%

category: 'Removing'
method: OrderedCollection
removeLast
	| element |
	<primitive: 402>
	lastIndex < firstIndex ifTrue: [^ self _errorEmptyCollection].
	element := array at: lastIndex.
	array at: lastIndex put: nil.
	lastIndex := lastIndex - 1.
	^ element
%

category: 'Removing'
method: OrderedCollection
removeFirst: n
	| result |
	result := Array new: n.
	1 to: n do: [:i | result at: i put: self removeFirst].
	^ result
%

category: 'Removing'
method: OrderedCollection
removeLast: n
	| result |
	result := Array new: n.
	n to: 1 by: -1 do: [:i | result at: i put: self removeLast].
	^ result
%

category: 'Removing'
method: OrderedCollection
removeIndex: anIndex
	| index element |
	index := self _checkIndex: anIndex.
	element := array at: index.
	index to: lastIndex - 1 do: [:i | array at: i put: (array at: i + 1)].
	array at: lastIndex put: nil.
	lastIndex := lastIndex - 1.
	^ element
%

category: 'Removing'
method: OrderedCollection
removeAtIndex: anIndex
	^ self removeIndex: anIndex
%

category: 'Removing'
method: OrderedCollection
remove: anObject ifAbsent: aBlock
	| index |
	index := self indexOf: anObject.
	index = 0 ifTrue: [^ aBlock value].
	self removeIndex: index.
	^ anObject
%

category: 'Removing'
method: OrderedCollection
removeAll
	self _initialize: 10
%

category: 'Copying'
method: OrderedCollection
postCopy
	array := array copy
%

category: 'Enumerating'
method: OrderedCollection
collect: aBlock
	| result |
	result := OrderedCollection new: self size.
	self do: [:each | result addLast: (aBlock value: each)].
	^ result
%

category: 'Enumerating'
method: OrderedCollection
select: aBlock
	| result |
	result := self species new.
	self do: [:each | (aBlock value: each) ifTrue: [result add: each]].
	^ result
%

category: 'Enumerating'
method: OrderedCollection
with: aCollection collect: aBlock
	| result |
	aCollection size = self size
		ifFalse: [^ ArgumentError new signal: 'The collections differ in size'].
	result := OrderedCollection new: self size.
	1 to: self size do: [:i | result addLast: (aBlock value: (self at: i) value: (aCollection at: i))].
	^ result
%

category: 'Copying'
method: OrderedCollection
copyWith: anObject
	^ self copy add: anObject; yourself
%

category: 'Converting'
method: OrderedCollection
asOrderedCollection
	^ self copy
%

category: 'Instance Creation'
classmethod: OrderedCollection
new
	<primitive: 429>
	^ self new: 10
%

category: 'Instance Creation'
classmethod: OrderedCollection
new: aCapacity
	<primitive: 429>
	^ self basicNew _initialize: aCapacity
%

category: 'Instance Creation'
classmethod: OrderedCollection
new: aSize withAll: anObject
	| result |
	result := self new: aSize.
	aSize timesRepeat: [result addLast: anObject].
	^ result
%
