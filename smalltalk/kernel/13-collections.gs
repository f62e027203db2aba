! Collections: Collection, SequenceableCollection and ArrayedCollection protocol, and the classes OrderedCollection, SortedCollection, Interval, UnorderedCollection, Set, IdentitySet, Bag, Dictionary, IdentityDictionary.

! ------------------------------------------------------------------ Collection

category: 'Instance creation'
classmethod: Collection
with: anObject
	<primitive: 417>
	^ self new add: anObject; yourself
%

category: 'Instance creation'
classmethod: Collection
with: first with: second
	<primitive: 417>
	^ self new add: first; add: second; yourself
%

category: 'Instance creation'
classmethod: Collection
with: first with: second with: third
	<primitive: 417>
	^ self new add: first; add: second; add: third; yourself
%

category: 'Instance creation'
classmethod: Collection
with: first with: second with: third with: fourth
	<primitive: 417>
	^ self new add: first; add: second; add: third; add: fourth; yourself
%

category: 'Instance creation'
classmethod: Collection
with: first with: second with: third with: fourth with: fifth
	<primitive: 417>
	^ self new add: first; add: second; add: third; add: fourth; add: fifth; yourself
%

category: 'Instance creation'
classmethod: Collection
with: first with: second with: third with: fourth with: fifth with: sixth
	<primitive: 417>
	^ self new add: first; add: second; add: third; add: fourth; add: fifth; add: sixth; yourself
%

category: 'Instance creation'
classmethod: Collection
withAll: aCollection
	^ self new addAll: aCollection; yourself
%

category: 'Enumerating'
method: Collection
do: aBlock
	^ self subclassResponsibility
%

category: 'Adding'
method: Collection
add: anObject
	^ self subclassResponsibility
%

category: 'Adding'
method: Collection
addAll: aCollection
	aCollection do: [:each | self add: each].
	^ aCollection
%

category: 'Removing'
method: Collection
remove: anObject ifAbsent: aBlock
	^ self subclassResponsibility
%

category: 'Removing'
method: Collection
remove: anObject
	^ self remove: anObject ifAbsent: [self _errorNotFound: anObject]
%

category: 'Removing'
method: Collection
removeAll: aCollection
	aCollection == self ifTrue: [^ self removeAll: aCollection copy].
	aCollection do: [:each | self remove: each].
	^ aCollection
%

category: 'Removing'
method: Collection
removeAllSuchThat: aBlock
	(self select: aBlock) do: [:each | self remove: each]
%

category: 'Accessing'
method: Collection
size
	| count |
	count := 0.
	self do: [:each | count := count + 1].
	^ count
%

category: 'Testing'
method: Collection
isEmpty
	^ self size = 0
%

category: 'Testing'
method: Collection
notEmpty
	^ self isEmpty not
%

category: 'Testing'
method: Collection
isEmptyOrNil
	^ self isEmpty
%

category: 'Testing'
method: Collection
isCollection
	^ true
%

category: 'Testing'
method: Collection
includes: anObject
	self do: [:each | each = anObject ifTrue: [^ true]].
	^ false
%

category: 'Testing'
method: Collection
includesIdentical: anObject
	self do: [:each | each == anObject ifTrue: [^ true]].
	^ false
%

category: 'Testing'
method: Collection
occurrencesOf: anObject
	| count |
	count := 0.
	self do: [:each | each = anObject ifTrue: [count := count + 1]].
	^ count
%

category: 'Testing'
method: Collection
anySatisfy: aBlock
	self do: [:each | (aBlock value: each) ifTrue: [^ true]].
	^ false
%

category: 'Testing'
method: Collection
allSatisfy: aBlock
	self do: [:each | (aBlock value: each) ifFalse: [^ false]].
	^ true
%

category: 'Testing'
method: Collection
noneSatisfy: aBlock
	^ (self anySatisfy: aBlock) not
%

category: 'Testing'
method: Collection
ifEmpty: aBlock
	^ self isEmpty ifTrue: [aBlock value] ifFalse: [self]
%

category: 'Testing'
method: Collection
ifNotEmpty: aBlock
	^ self isEmpty
		ifTrue: [self]
		ifFalse: [aBlock numArgs = 0 ifTrue: [aBlock value] ifFalse: [aBlock value: self]]
%

category: 'Enumerating'
method: Collection
do: aBlock separatedBy: separatorBlock
	| first |
	first := true.
	self do: [:each |
		first ifFalse: [separatorBlock value].
		first := false.
		aBlock value: each]
%

category: 'Enumerating'
method: Collection
collect: aBlock
	| result |
	result := self species new.
	self do: [:each | result add: (aBlock value: each)].
	^ result
%

category: 'Enumerating'
method: Collection
select: aBlock
	| result |
	result := self species new.
	self do: [:each | (aBlock value: each) ifTrue: [result add: each]].
	^ result
%

category: 'Enumerating'
method: Collection
reject: aBlock
	^ self select: [:each | (aBlock value: each) == false]
%

category: 'Enumerating'
method: Collection
collect: collectBlock select: selectBlock
	^ (self collect: collectBlock) select: selectBlock
%

category: 'Enumerating'
method: Collection
select: selectBlock collect: collectBlock
	^ (self select: selectBlock) collect: collectBlock
%

category: 'Enumerating'
method: Collection
detect: aBlock
	^ self detect: aBlock ifNone: [self _errorNotFound: aBlock]
%

category: 'Enumerating'
method: Collection
detect: aBlock ifNone: exceptionBlock
	<primitive: 425>
	self do: [:each | (aBlock value: each) ifTrue: [^ each]].
	^ exceptionBlock value
%

category: 'Enumerating'
method: Collection
inject: initialValue into: aBlock
	| result |
	result := initialValue.
	self do: [:each | result := aBlock value: result value: each].
	^ result
%

category: 'Enumerating'
method: Collection
count: aBlock
	| count |
	count := 0.
	self do: [:each | (aBlock value: each) ifTrue: [count := count + 1]].
	^ count
%

category: 'Enumerating'
method: Collection
detectMax: aBlock
	| best bestValue |
	self do: [:each | | v |
		v := aBlock value: each.
		(bestValue == nil or: [v > bestValue]) ifTrue: [best := each. bestValue := v]].
	^ best
%

category: 'Enumerating'
method: Collection
detectMin: aBlock
	| best bestValue |
	self do: [:each | | v |
		v := aBlock value: each.
		(bestValue == nil or: [v < bestValue]) ifTrue: [best := each. bestValue := v]].
	^ best
%

category: 'Enumerating'
method: Collection
max
	^ self inject: self anyOne into: [:a :b | a max: b]
%

category: 'Enumerating'
method: Collection
min
	^ self inject: self anyOne into: [:a :b | a min: b]
%

category: 'Enumerating'
method: Collection
sum
	"The sum of the elements; 0 for an empty collection."
	^ self inject: 0 into: [:a :b | a + b]
%

category: 'Enumerating'
method: Collection
sum: aBlock
	^ self inject: 0 into: [:a :b | a + (aBlock value: b)]
%

category: 'Accessing'
method: Collection
anyOne
	self do: [:each | ^ each].
	^ self _errorEmptyCollection
%

category: 'Converting'
method: Collection
asArray
	^ Array withAll: self
%

category: 'Converting'
method: Collection
asOrderedCollection
	^ OrderedCollection withAll: self
%

category: 'Converting'
method: Collection
asSet
	^ Set withAll: self
%

category: 'Converting'
method: Collection
asIdentitySet
	^ IdentitySet withAll: self
%

category: 'Converting'
method: Collection
asBag
	^ Bag withAll: self
%

category: 'Converting'
method: Collection
asSortedCollection
	^ SortedCollection withAll: self
%

category: 'Converting'
method: Collection
asSortedCollection: aSortBlock
	^ (SortedCollection sortBlock: aSortBlock) addAll: self; yourself
%

category: 'Converting'
method: Collection
sortWithBlock: aSortBlock
	"An Array of the elements sorted by aSortBlock."
	^ self _asArraySortedBy: aSortBlock
%

category: 'Private'
method: Collection
_asArraySortedBy: aSortBlock
	"A new Array of the elements in the order aSortBlock defines (it answers true when its
	 first argument may come before its second). A bottom-up merge sort: n log n, and stable
	 for blocks such as [:a :b | a <= b]."
	| source target swap n width start middle stop i j k |
	n := self size.
	source := Array new: n.
	k := 0.
	self do: [:each | source at: (k := k + 1) put: each].
	target := Array new: n.
	width := 1.
	[width < n] whileTrue: [
		start := 1.
		[start <= n] whileTrue: [
			middle := start + width - 1 min: n.
			stop := start + (2 * width) - 1 min: n.
			i := start.
			j := middle + 1.
			k := start.
			[k <= stop] whileTrue: [
				(j > stop or: [i <= middle and: [aSortBlock value: (source at: i) value: (source at: j)]])
					ifTrue: [target at: k put: (source at: i). i := i + 1]
					ifFalse: [target at: k put: (source at: j). j := j + 1].
				k := k + 1].
			start := start + (2 * width)].
		swap := source.
		source := target.
		target := swap.
		width := width * 2].
	^ source
%

category: 'Copying'
method: Collection
copyWith: anObject
	^ self copy add: anObject; yourself
%

category: 'Copying'
method: Collection
copyWithout: anObject
	^ self reject: [:each | each = anObject]
%

category: 'Private'
method: Collection
species
	^ self class
%

category: 'Printing'
method: Collection
printOn: aStream
	"anArray( 1, 2, 3) — GemStone's form: the class with its article, '( ', elements separated by ', ', ')'."
	self _printGuardedOn: aStream with: [
		self do: [:each | each printOn: aStream] separatedBy: [aStream nextPutAll: ', ']]
%

category: 'Printing'
method: Collection
_printGuardedOn: aStream with: elementsBlock
	"Writes the class with its article and '( ', then what elementsBlock writes, then ')'.
	A collection already being printed further out (one that holds itself, directly
	or not) is written as its class and '( ...)' instead, so printing a cycle ends.
	The set of collections being printed lives in SessionTemps, so it reaches through
	any element's printOn: (an Association, a user class) and never reaches disk."
	| temps active |
	aStream nextPutAll: self describeClassName; nextPutAll: '( '.
	temps := SessionTemps current.
	active := temps at: #'_GsPrintingCollections' ifAbsent: [nil].
	active isNil ifTrue: [active := temps at: #'_GsPrintingCollections' put: IdentitySet new].
	(active includes: self) ifTrue: [^ aStream nextPutAll: '...)'].
	active add: self.
	[elementsBlock value] ensure: [active remove: self ifAbsent: [nil]].
	aStream nextPut: $)
%

! ------------------------------------------------------- SequenceableCollection

category: 'Enumerating'
method: SequenceableCollection
do: aBlock
	<primitive: 406>
	1 to: self size do: [:i | aBlock value: (self at: i)]
%

category: 'Enumerating'
method: SequenceableCollection
reverseDo: aBlock
	self size to: 1 by: -1 do: [:i | aBlock value: (self at: i)]
%

category: 'Enumerating'
method: SequenceableCollection
doWithIndex: aBlock
	"aBlock takes the element, then its index."
	<primitive: 407>
	1 to: self size do: [:i | aBlock value: (self at: i) value: i]
%

category: 'Enumerating'
method: SequenceableCollection
withIndexDo: aBlock
	<primitive: 407>
	1 to: self size do: [:i | aBlock value: (self at: i) value: i]
%

category: 'Enumerating'
method: SequenceableCollection
keysAndValuesDo: aBlock
	"aBlock takes the index, then the element."
	1 to: self size do: [:i | aBlock value: i value: (self at: i)]
%

category: 'Enumerating'
method: SequenceableCollection
from: start to: stop do: aBlock
	start to: stop do: [:i | aBlock value: (self at: i)]
%

category: 'Enumerating'
method: SequenceableCollection
with: aCollection do: aBlock
	aCollection size = self size
		ifFalse: [^ ArgumentError new signal: 'The collections differ in size'].
	1 to: self size do: [:i | aBlock value: (self at: i) value: (aCollection at: i)]
%

category: 'Enumerating'
method: SequenceableCollection
with: aCollection collect: aBlock
	| result |
	aCollection size = self size
		ifFalse: [^ ArgumentError new signal: 'The collections differ in size'].
	result := OrderedCollection new.
	1 to: self size do: [:i | result add: (aBlock value: (self at: i) value: (aCollection at: i))].
	^ self species withAll: result
%

category: 'Enumerating'
method: SequenceableCollection
collect: aBlock
	| result |
	result := OrderedCollection new.
	1 to: self size do: [:i | result add: (aBlock value: (self at: i))].
	^ self species withAll: result
%

category: 'Enumerating'
method: SequenceableCollection
collectWithIndex: aBlock
	| result |
	result := OrderedCollection new.
	1 to: self size do: [:i | result add: (aBlock value: (self at: i) value: i)].
	^ self species withAll: result
%

category: 'Enumerating'
method: SequenceableCollection
select: aBlock
	| result |
	result := OrderedCollection new.
	self do: [:each | (aBlock value: each) ifTrue: [result add: each]].
	^ self species withAll: result
%

category: 'Enumerating'
method: SequenceableCollection
findFirst: aBlock
	1 to: self size do: [:i | (aBlock value: (self at: i)) ifTrue: [^ i]].
	^ 0
%

category: 'Enumerating'
method: SequenceableCollection
findLast: aBlock
	self size to: 1 by: -1 do: [:i | (aBlock value: (self at: i)) ifTrue: [^ i]].
	^ 0
%

category: 'Accessing'
method: SequenceableCollection
first
	"The first element; an empty receiver signals the index error of at: 1."
	<primitive: 427>
	^ self at: 1
%

category: 'Accessing'
method: SequenceableCollection
last
	"The last element; an empty receiver signals the index error of at: 0."
	<primitive: 428>
	^ self at: self size
%

category: 'Accessing'
method: SequenceableCollection
second
	^ self at: 2
%

category: 'Accessing'
method: SequenceableCollection
third
	^ self at: 3
%

category: 'Accessing'
method: SequenceableCollection
first: n
	^ self copyFrom: 1 to: n
%

category: 'Accessing'
method: SequenceableCollection
last: n
	^ self copyFrom: self size - n + 1 to: self size
%

category: 'Accessing'
method: SequenceableCollection
allButFirst
	^ self copyFrom: 2 to: self size
%

category: 'Accessing'
method: SequenceableCollection
allButLast
	^ self copyFrom: 1 to: self size - 1
%

category: 'Accessing'
method: SequenceableCollection
at: anIndex ifAbsent: aBlock
	(anIndex isInteger and: [anIndex between: 1 and: self size]) ifFalse: [^ aBlock value].
	^ self at: anIndex
%

category: 'Accessing'
method: SequenceableCollection
indexOf: anObject
	1 to: self size do: [:i | (self at: i) = anObject ifTrue: [^ i]].
	^ 0
%

category: 'Accessing'
method: SequenceableCollection
indexOf: anObject ifAbsent: aBlock
	| index |
	index := self indexOf: anObject.
	^ index = 0 ifTrue: [aBlock value] ifFalse: [index]
%

category: 'Accessing'
method: SequenceableCollection
indexOf: anObject startingAt: start
	start to: self size do: [:i | (self at: i) = anObject ifTrue: [^ i]].
	^ 0
%

category: 'Accessing'
method: SequenceableCollection
indexOfSubCollection: aCollection startingAt: start ifAbsent: aBlock
	| n |
	n := aCollection size.
	start to: self size - n + 1 do: [:i | | match |
		match := true.
		1 to: n do: [:j | (match and: [(self at: i + j - 1) ~= (aCollection at: j)]) ifTrue: [match := false]].
		match ifTrue: [^ i]].
	^ aBlock value
%

category: 'Accessing'
method: SequenceableCollection
indexOfSubCollection: aCollection startingAt: start
	^ self indexOfSubCollection: aCollection startingAt: start ifAbsent: [0]
%

category: 'Accessing'
method: SequenceableCollection
indexOfSubCollection: aCollection
	^ self indexOfSubCollection: aCollection startingAt: 1 ifAbsent: [0]
%

category: 'Accessing'
method: SequenceableCollection
atAllPut: anObject
	1 to: self size do: [:i | self at: i put: anObject]
%

category: 'Accessing'
method: SequenceableCollection
swap: i with: j
	| t |
	t := self at: i.
	self at: i put: (self at: j).
	self at: j put: t
%

category: 'Testing'
method: SequenceableCollection
includes: anObject
	^ (self indexOf: anObject) > 0
%

category: 'Testing'
method: SequenceableCollection
isEmpty
	^ self size = 0
%

category: 'Comparing'
method: SequenceableCollection
= aCollection
	self == aCollection ifTrue: [^ true].
	self class == aCollection class ifFalse: [^ false].
	self size = aCollection size ifFalse: [^ false].
	1 to: self size do: [:i | (self at: i) = (aCollection at: i) ifFalse: [^ false]].
	^ true
%

category: 'Comparing'
method: SequenceableCollection
hash
	| h |
	h := self size.
	1 to: (self size min: 8) do: [:i | h := (h * 31 + (self at: i) hash) \\ 16r3FFFFFFF].
	^ h
%

category: 'Testing'
method: SequenceableCollection
beginsWith: aCollection
	aCollection size > self size ifTrue: [^ false].
	1 to: aCollection size do: [:i | (self at: i) = (aCollection at: i) ifFalse: [^ false]].
	^ true
%

category: 'Testing'
method: SequenceableCollection
endsWith: aCollection
	| offset |
	offset := self size - aCollection size.
	offset < 0 ifTrue: [^ false].
	1 to: aCollection size do: [:i | (self at: offset + i) = (aCollection at: i) ifFalse: [^ false]].
	^ true
%

category: 'Copying'
method: SequenceableCollection
copyFrom: start to: stop
	| result |
	(start > (stop + 1) or: [start < 1 or: [stop > self size]])
		ifTrue: [^ OutOfRange new signal: 'copyFrom: ', start printString, ' to: ', stop printString,
			' is out of range (size ', self size printString, ')'].
	result := OrderedCollection new.
	start to: stop do: [:i | result add: (self at: i)].
	^ self species withAll: result
%

category: 'Copying'
method: SequenceableCollection
, aCollection
	| result |
	result := OrderedCollection new.
	self do: [:each | result add: each].
	aCollection do: [:each | result add: each].
	^ self species withAll: result
%

category: 'Copying'
method: SequenceableCollection
copyWith: anObject
	^ self , (Array with: anObject)
%

category: 'Copying'
method: SequenceableCollection
reverse
	| result |
	result := OrderedCollection new.
	self reverseDo: [:each | result add: each].
	^ self species withAll: result
%

category: 'Copying'
method: SequenceableCollection
reversed
	^ self reverse
%

category: 'Copying'
method: SequenceableCollection
copyReplaceAll: oldSub with: newSub
	"A copy with every occurrence of the subcollection oldSub replaced by newSub."
	| result start index |
	oldSub isEmpty ifTrue: [^ self copy].
	result := OrderedCollection new.
	start := 1.
	[index := self indexOfSubCollection: oldSub startingAt: start.
	 index > 0] whileTrue: [
		start to: index - 1 do: [:i | result add: (self at: i)].
		newSub do: [:each | result add: each].
		start := index + oldSub size].
	start to: self size do: [:i | result add: (self at: i)].
	^ self species withAll: result
%

category: 'Copying'
method: SequenceableCollection
copyReplacing: oldObject with: newObject
	^ self collect: [:each | each = oldObject ifTrue: [newObject] ifFalse: [each]]
%

category: 'Copying'
method: SequenceableCollection
replaceAll: oldObject with: newObject
	"Replaces, in place, every element equal to oldObject by newObject."
	1 to: self size do: [:i | (self at: i) = oldObject ifTrue: [self at: i put: newObject]]
%

category: 'Copying'
method: SequenceableCollection
replaceFrom: start to: stop with: aCollection startingAt: repStart
	| offset |
	offset := repStart - start.
	(self == aCollection and: [repStart < start])
		ifTrue: [stop to: start by: -1 do: [:i | self at: i put: (aCollection at: i + offset)]]
		ifFalse: [start to: stop do: [:i | self at: i put: (aCollection at: i + offset)]]
%

category: 'Copying'
method: SequenceableCollection
replaceFrom: start to: stop with: aCollection
	^ self replaceFrom: start to: stop with: aCollection startingAt: 1
%

category: 'Sorting'
method: SequenceableCollection
sort
	^ self sort: [:a :b | a <= b]
%

category: 'Sorting'
method: SequenceableCollection
sort: aSortBlock
	"Sorts the receiver in place (stable merge sort)."
	| sorted |
	sorted := self _asArraySortedBy: aSortBlock.
	1 to: sorted size do: [:i | self at: i put: (sorted at: i)]
%

category: 'Sorting'
method: SequenceableCollection
asSortedCollection: aSortBlock
	^ (SortedCollection sortBlock: aSortBlock) addAll: self; yourself
%

category: 'Converting'
method: SequenceableCollection
readStream
	^ ReadStream on: self
%

category: 'Converting'
method: SequenceableCollection
writeStream
	^ WriteStream on: self
%

! ------------------------------------------------------------ ArrayedCollection

category: 'Instance creation'
classmethod: ArrayedCollection
new
	^ self new: 0
%

category: 'Instance creation'
classmethod: ArrayedCollection
new: aSize withAll: anObject
	| result |
	<primitive: 426>
	result := self new: aSize.
	1 to: aSize do: [:i | result at: i put: anObject].
	^ result
%

category: 'Instance creation'
classmethod: ArrayedCollection
withAll: aCollection
	| result index |
	result := self new: aCollection size.
	index := 0.
	aCollection do: [:each | result at: (index := index + 1) put: each].
	^ result
%

category: 'Instance creation'
classmethod: ArrayedCollection
with: first
	<primitive: 417>
	^ (self new: 1) at: 1 put: first; yourself
%

category: 'Instance creation'
classmethod: ArrayedCollection
with: first with: second
	<primitive: 417>
	^ (self new: 2) at: 1 put: first; at: 2 put: second; yourself
%

category: 'Instance creation'
classmethod: ArrayedCollection
with: first with: second with: third
	<primitive: 417>
	^ (self new: 3) at: 1 put: first; at: 2 put: second; at: 3 put: third; yourself
%

category: 'Instance creation'
classmethod: ArrayedCollection
with: first with: second with: third with: fourth
	<primitive: 417>
	^ (self new: 4) at: 1 put: first; at: 2 put: second; at: 3 put: third; at: 4 put: fourth; yourself
%

category: 'Instance creation'
classmethod: ArrayedCollection
with: first with: second with: third with: fourth with: fifth
	<primitive: 417>
	^ (self new: 5) at: 1 put: first; at: 2 put: second; at: 3 put: third; at: 4 put: fourth;
		at: 5 put: fifth; yourself
%

category: 'Instance creation'
classmethod: ArrayedCollection
with: first with: second with: third with: fourth with: fifth with: sixth
	<primitive: 417>
	^ (self new: 6) at: 1 put: first; at: 2 put: second; at: 3 put: third; at: 4 put: fourth;
		at: 5 put: fifth; at: 6 put: sixth; yourself
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

category: 'Testing'
method: Array
isArray
	^ true
%

category: 'Printing'
method: ByteArray
printOn: aStream
	"aByteArray( 1, 2, 3) — the collection form (no source for GemStone's exact text)."
	aStream nextPutAll: 'aByteArray( '.
	self do: [:each | each printOn: aStream] separatedBy: [aStream nextPutAll: ', '].
	aStream nextPut: $)
%

! ------------------------------------------------------------ OrderedCollection

category: 'Instance creation'
classmethod: OrderedCollection
new
	<primitive: 429>
	^ self new: 10
%

category: 'Instance creation'
classmethod: OrderedCollection
new: aCapacity
	<primitive: 429>
	^ self basicNew _initialize: aCapacity
%

category: 'Instance creation'
classmethod: OrderedCollection
new: aSize withAll: anObject
	| result |
	result := self new: aSize.
	aSize timesRepeat: [result addLast: anObject].
	^ result
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

! ------------------------------------------------------------ SortedCollection

category: 'Instance creation'
classmethod: SortedCollection
new: aCapacity
	^ (super new: aCapacity) _setSortBlock: [:a :b | a <= b]
%

category: 'Instance creation'
classmethod: SortedCollection
sortBlock: aBlock
	^ self new _setSortBlock: aBlock
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

! ------------------------------------------------------------------- Interval

category: 'Instance creation'
classmethod: Interval
from: start to: stop by: step
	step = 0 ifTrue: [^ ArgumentError new signal: 'The step of an Interval must not be zero'].
	^ self basicNew _setFrom: start to: stop by: step
%

category: 'Instance creation'
classmethod: Interval
from: start to: stop
	^ self from: start to: stop by: 1
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

! ------------------------------------------------------------------------- Set

category: 'Instance creation'
classmethod: Set
new
	^ self new: 8
%

category: 'Instance creation'
classmethod: Set
new: aCapacity
	^ self basicNew _initialize: aCapacity
%

category: 'Private'
method: Set
_initialize: aCapacity
	| n |
	n := 8.
	[n < (aCapacity * 4 // 3 + 1)] whileTrue: [n := n * 2].
	buckets := Array new: n.
	tally := 0
%

category: 'Private'
method: Set
_indexOf: anObject
	"The bucket holding anObject, or the empty bucket where it would go. The hash is
	 multiplied by an odd constant so neighbouring hashes (consecutive integers) spread
	 over the table instead of forming one long probe run."
	| n index stored |
	<primitive: 240>
	n := buckets size.
	index := anObject hash \\ 16r3FFFFFFF * 40503 \\ n + 1.
	[(stored := buckets at: index) == nil or: [stored = anObject]]
		whileFalse: [index := index \\ n + 1].
	^ index
%

category: 'Private'
method: Set
_grow
	| old |
	<primitive: 422>
	old := buckets.
	buckets := Array new: old size * 2.
	tally := 0.
	old do: [:each | each == nil ifFalse: [self _store: each]]
%

category: 'Private'
method: Set
_store: anObject
	| index |
	index := self _indexOf: anObject.
	(buckets at: index) == nil ifTrue: [
		buckets at: index put: anObject.
		tally := tally + 1]
%

category: 'Accessing'
method: Set
size
	^ tally
%

category: 'Adding'
method: Set
add: anObject
	"nil is never an element; adding it changes nothing."
	<primitive: 412>
	anObject == nil ifTrue: [^ anObject].
	tally * 4 >= (buckets size * 3) ifTrue: [self _grow].
	self _store: anObject.
	^ anObject
%

category: 'Removing'
method: Set
remove: anObject ifAbsent: aBlock
	| index |
	anObject == nil ifTrue: [^ aBlock value].
	index := self _indexOf: anObject.
	(buckets at: index) == nil ifTrue: [^ aBlock value].
	buckets at: index put: nil.
	tally := tally - 1.
	self _fixCollisionsAfter: index.
	^ anObject
%

category: 'Private'
method: Set
_fixCollisionsAfter: anIndex
	"Re-places the elements of the probe run after an emptied bucket, so lookups still find them."
	| n index element |
	n := buckets size.
	index := anIndex \\ n + 1.
	[(element := buckets at: index) == nil] whileFalse: [
		buckets at: index put: nil.
		tally := tally - 1.
		self _store: element.
		index := index \\ n + 1]
%

category: 'Testing'
method: Set
includes: anObject
	<primitive: 413>
	anObject == nil ifTrue: [^ false].
	^ (buckets at: (self _indexOf: anObject)) ~~ nil
%

category: 'Testing'
method: Set
occurrencesOf: anObject
	^ (self includes: anObject) ifTrue: [1] ifFalse: [0]
%

category: 'Enumerating'
method: Set
do: aBlock
	buckets do: [:each | each == nil ifFalse: [aBlock value: each]]
%

category: 'Copying'
method: Set
postCopy
	buckets := buckets copy
%

category: 'Comparing'
method: Set
= aCollection
	self == aCollection ifTrue: [^ true].
	self class == aCollection class ifFalse: [^ false].
	self size = aCollection size ifFalse: [^ false].
	^ self allSatisfy: [:each | aCollection includes: each]
%

category: 'Comparing'
method: Set
hash
	^ self size
%

category: 'Private'
method: IdentitySet
_indexOf: anObject
	"As Set>>_indexOf:, by identity."
	| n index stored |
	n := buckets size.
	index := anObject identityHash \\ 16r3FFFFFFF * 40503 \\ n + 1.
	[(stored := buckets at: index) == nil or: [stored == anObject]]
		whileFalse: [index := index \\ n + 1].
	^ index
%

! ------------------------------------------------------------------------- Bag

category: 'Instance creation'
classmethod: Bag
new
	^ self basicNew _initialize
%

category: 'Instance creation'
classmethod: Bag
new: aCapacity
	^ self new
%

category: 'Private'
method: Bag
_initialize
	counts := Dictionary new
%

category: 'Adding'
method: Bag
add: anObject
	^ self add: anObject withOccurrences: 1
%

category: 'Adding'
method: Bag
add: anObject withOccurrences: anInteger
	anObject == nil ifTrue: [^ anObject].
	counts at: anObject put: (counts at: anObject ifAbsent: [0]) + anInteger.
	^ anObject
%

category: 'Removing'
method: Bag
remove: anObject ifAbsent: aBlock
	| count |
	count := counts at: anObject ifAbsent: [^ aBlock value].
	count = 1
		ifTrue: [counts removeKey: anObject]
		ifFalse: [counts at: anObject put: count - 1].
	^ anObject
%

category: 'Testing'
method: Bag
occurrencesOf: anObject
	^ counts at: anObject ifAbsent: [0]
%

category: 'Testing'
method: Bag
includes: anObject
	^ counts includesKey: anObject
%

category: 'Accessing'
method: Bag
size
	^ counts inject: 0 into: [:sum :each | sum + each]
%

category: 'Enumerating'
method: Bag
do: aBlock
	counts keysAndValuesDo: [:element :count | count timesRepeat: [aBlock value: element]]
%

category: 'Converting'
method: Bag
asSet
	^ counts keys asSet
%

category: 'Copying'
method: Bag
postCopy
	counts := counts copy
%

! ---------------------------------------------------------- AbstractDictionary

category: 'Accessing'
method: AbstractDictionary
at: aKey
	^ self at: aKey ifAbsent: [self _errorKeyNotFound: aKey]
%

category: 'Accessing'
method: AbstractDictionary
at: aKey otherwise: aValue
	^ self at: aKey ifAbsent: [aValue]
%

category: 'Accessing'
method: AbstractDictionary
at: aKey ifAbsentPut: aBlock
	^ self at: aKey ifAbsent: [self at: aKey put: aBlock value]
%

category: 'Accessing'
method: AbstractDictionary
at: aKey ifPresent: aBlock
	| value |
	value := self at: aKey ifAbsent: [^ nil].
	^ aBlock numArgs = 0 ifTrue: [aBlock value] ifFalse: [aBlock value: value]
%

category: 'Accessing'
method: AbstractDictionary
at: aKey ifPresent: presentBlock ifAbsent: absentBlock
	| value |
	value := self at: aKey ifAbsent: [^ absentBlock value].
	^ presentBlock numArgs = 0 ifTrue: [presentBlock value] ifFalse: [presentBlock value: value]
%

category: 'Accessing'
method: AbstractDictionary
associationAt: aKey
	^ self associationAt: aKey ifAbsent: [self _errorKeyNotFound: aKey]
%

category: 'Accessing'
method: AbstractDictionary
keys
	"A Set of the keys, as GemStone answers."
	| result |
	result := Set new.
	self keysDo: [:each | result add: each].
	^ result
%

category: 'Accessing'
method: AbstractDictionary
values
	"An Array of the values."
	| result |
	result := OrderedCollection new.
	self valuesDo: [:each | result add: each].
	^ result asArray
%

category: 'Accessing'
method: AbstractDictionary
associations
	| result |
	result := OrderedCollection new.
	self associationsDo: [:each | result add: each].
	^ result asArray
%

category: 'Accessing'
method: AbstractDictionary
keyAtValue: aValue
	^ self keyAtValue: aValue ifAbsent: [nil]
%

category: 'Accessing'
method: AbstractDictionary
keyAtValue: aValue ifAbsent: aBlock
	self keysAndValuesDo: [:k :v | v = aValue ifTrue: [^ k]].
	^ aBlock value
%

category: 'Accessing'
method: AbstractDictionary
size
	| count |
	count := 0.
	self keysAndValuesDo: [:k :v | count := count + 1].
	^ count
%

category: 'Testing'
method: AbstractDictionary
includesKey: aKey
	self at: aKey ifAbsent: [^ false].
	^ true
%

category: 'Testing'
method: AbstractDictionary
includes: aValue
	self valuesDo: [:each | each = aValue ifTrue: [^ true]].
	^ false
%

category: 'Testing'
method: AbstractDictionary
isDictionary
	^ true
%

category: 'Removing'
method: AbstractDictionary
removeKey: aKey
	^ self removeKey: aKey ifAbsent: [self _errorKeyNotFound: aKey]
%

category: 'Removing'
method: AbstractDictionary
remove: anObject ifAbsent: aBlock
	^ self shouldNotImplement
%

category: 'Adding'
method: AbstractDictionary
add: anAssociation
	self at: anAssociation key put: anAssociation value.
	^ anAssociation
%

category: 'Adding'
method: AbstractDictionary
addAll: aCollection
	aCollection isDictionary
		ifTrue: [aCollection keysAndValuesDo: [:k :v | self at: k put: v]]
		ifFalse: [aCollection do: [:each | self add: each]].
	^ aCollection
%

category: 'Enumerating'
method: AbstractDictionary
keysAndValuesDo: aBlock
	self associationsDo: [:each | aBlock value: each key value: each value]
%

category: 'Enumerating'
method: AbstractDictionary
keysDo: aBlock
	self keysAndValuesDo: [:k :v | aBlock value: k]
%

category: 'Enumerating'
method: AbstractDictionary
valuesDo: aBlock
	self keysAndValuesDo: [:k :v | aBlock value: v]
%

category: 'Enumerating'
method: AbstractDictionary
do: aBlock
	self valuesDo: aBlock
%

category: 'Enumerating'
method: AbstractDictionary
collect: aBlock
	"A Bag of the results of aBlock on each value."
	| result |
	result := Bag new.
	self valuesDo: [:each | result add: (aBlock value: each)].
	^ result
%

category: 'Enumerating'
method: AbstractDictionary
select: aBlock
	"A dictionary of the same class holding the entries whose value satisfies aBlock."
	| result |
	result := self species new.
	self keysAndValuesDo: [:k :v | (aBlock value: v) ifTrue: [result at: k put: v]].
	^ result
%

category: 'Enumerating'
method: AbstractDictionary
reject: aBlock
	| result |
	result := self species new.
	self keysAndValuesDo: [:k :v | (aBlock value: v) ifFalse: [result at: k put: v]].
	^ result
%

category: 'Enumerating'
method: AbstractDictionary
keysSortedSafely
	^ self keys asSortedCollection: [:a :b | a printString <= b printString]
%

category: 'Comparing'
method: AbstractDictionary
= aDictionary
	self == aDictionary ifTrue: [^ true].
	self class == aDictionary class ifFalse: [^ false].
	self size = aDictionary size ifFalse: [^ false].
	self keysAndValuesDo: [:k :v |
		(aDictionary at: k ifAbsent: [^ false]) = v ifFalse: [^ false]].
	^ true
%

category: 'Comparing'
method: AbstractDictionary
hash
	^ self size
%

category: 'Printing'
method: AbstractDictionary
printOn: aStream
	"aDictionary( #a->1, #b->2)"
	self _printGuardedOn: aStream with: [
		self associations
			do: [:each | aStream print: each key; nextPutAll: '->'; print: each value]
			separatedBy: [aStream nextPutAll: ', ']]
%

! ------------------------------------------------------------------ Dictionary

category: 'Instance creation'
classmethod: Dictionary
new
	^ self new: 8
%

category: 'Instance creation'
classmethod: Dictionary
new: aCapacity
	^ self basicNew _initialize: aCapacity
%

category: 'Private'
method: Dictionary
_initialize: aCapacity
	| n |
	n := 8.
	[n < (aCapacity * 4 // 3 + 1)] whileTrue: [n := n * 2].
	buckets := Array new: n.
	tally := 0
%

category: 'Private'
method: Dictionary
_indexOf: aKey
	"The bucket holding the association for aKey, or the empty bucket where it would go
	 (hashes spread as in Set>>_indexOf:)."
	| n index assoc |
	<primitive: 241>
	n := buckets size.
	index := aKey hash \\ 16r3FFFFFFF * 40503 \\ n + 1.
	[(assoc := buckets at: index) == nil or: [assoc key = aKey]]
		whileFalse: [index := index \\ n + 1].
	^ index
%

category: 'Private'
method: Dictionary
_rehashInto: aSize
	| old |
	<primitive: 424>
	old := buckets.
	buckets := Array new: aSize.
	tally := 0.
	old do: [:each | each == nil ifFalse: [
		buckets at: (self _indexOf: each key) put: each.
		tally := tally + 1]]
%

category: 'Accessing'
method: Dictionary
size
	^ tally
%

category: 'Accessing'
method: Dictionary
at: aKey ifAbsent: aBlock
	| assoc |
	<primitive: 410>
	assoc := buckets at: (self _indexOf: aKey).
	assoc == nil ifTrue: [^ aBlock value].
	^ assoc value
%

category: 'Accessing'
method: Dictionary
associationAt: aKey ifAbsent: aBlock
	| assoc |
	assoc := buckets at: (self _indexOf: aKey).
	assoc == nil ifTrue: [^ aBlock value].
	^ assoc
%

category: 'Accessing'
method: Dictionary
at: aKey put: aValue
	| index assoc |
	<primitive: 411>
	index := self _indexOf: aKey.
	assoc := buckets at: index.
	assoc == nil ifFalse: [assoc value: aValue. ^ aValue].
	tally * 4 >= (buckets size * 3) ifTrue: [
		self _rehashInto: buckets size * 2.
		index := self _indexOf: aKey].
	buckets at: index put: (Association key: aKey value: aValue).
	tally := tally + 1.
	^ aValue
%

category: 'Adding'
method: Dictionary
add: anAssociation
	| index |
	index := self _indexOf: anAssociation key.
	(buckets at: index) == nil
		ifTrue: [
			tally * 4 >= (buckets size * 3) ifTrue: [
				self _rehashInto: buckets size * 2.
				index := self _indexOf: anAssociation key].
			tally := tally + 1].
	buckets at: index put: anAssociation.
	^ anAssociation
%

category: 'Removing'
method: Dictionary
removeKey: aKey ifAbsent: aBlock
	| index assoc n next moved |
	index := self _indexOf: aKey.
	assoc := buckets at: index.
	assoc == nil ifTrue: [^ aBlock value].
	buckets at: index put: nil.
	tally := tally - 1.
	"Re-place the rest of the probe run so lookups still find it."
	n := buckets size.
	next := index \\ n + 1.
	[(moved := buckets at: next) == nil] whileFalse: [
		buckets at: next put: nil.
		buckets at: (self _indexOf: moved key) put: moved.
		next := next \\ n + 1].
	^ assoc value
%

category: 'Testing'
method: Dictionary
includesKey: aKey
	^ (buckets at: (self _indexOf: aKey)) ~~ nil
%

category: 'Enumerating'
method: Dictionary
associationsDo: aBlock
	buckets do: [:each | each == nil ifFalse: [aBlock value: each]]
%

category: 'Enumerating'
method: Dictionary
keysAndValuesDo: aBlock
	buckets do: [:each | each == nil ifFalse: [aBlock value: each key value: each value]]
%

category: 'Copying'
method: Dictionary
postCopy
	buckets := buckets collect: [:each | each == nil ifTrue: [nil] ifFalse: [each copy]]
%

category: 'Private'
method: IdentityDictionary
_indexOf: aKey
	"As Dictionary>>_indexOf:, by identity."
	| n index assoc |
	n := buckets size.
	index := aKey identityHash \\ 16r3FFFFFFF * 40503 \\ n + 1.
	[(assoc := buckets at: index) == nil or: [assoc key == aKey]]
		whileFalse: [index := index \\ n + 1].
	^ index
%

! ---------------------------------------------------------- SymbolDictionary

category: 'Private'
method: SymbolDictionary
_associationAtOrNil: aKey
	<primitive: 322>
	^ nil
%

category: 'Private'
method: SymbolDictionary
_associationsArray
	<primitive: 327>
	^ #()
%

category: 'Accessing'
method: SymbolDictionary
at: aKey ifAbsent: aBlock
	| assoc |
	assoc := self _associationAtOrNil: aKey.
	assoc == nil ifTrue: [^ aBlock value].
	^ assoc value
%

category: 'Accessing'
method: SymbolDictionary
associationAt: aKey ifAbsent: aBlock
	| assoc |
	assoc := self _associationAtOrNil: aKey.
	assoc == nil ifTrue: [^ aBlock value].
	^ assoc
%

category: 'Removing'
method: SymbolDictionary
removeKey: aKey ifAbsent: aBlock
	(self _associationAtOrNil: aKey) == nil ifTrue: [^ aBlock value].
	^ self _removeKeyPresent: aKey
%

category: 'Private'
method: SymbolDictionary
_removeKeyPresent: aKey
	<primitive: 323>
	^ self _errorKeyNotFound: aKey
%

category: 'Accessing'
method: SymbolDictionary
at: aKey put: aValue
	<primitive: 321>
	^ ArgumentTypeError new signal: 'at:put: failed on a SymbolDictionary'
%

category: 'Accessing'
method: SymbolDictionary
keys
	"A Set of the keys, like every dictionary."
	| result |
	result := Set new.
	self _associationsArray do: [:each | result add: each key].
	^ result
%

category: 'Enumerating'
method: SymbolDictionary
associationsDo: aBlock
	self _associationsArray do: aBlock
%

category: 'Accessing'
method: SymbolDictionary
name
	"The key under which the receiver holds itself, or nil."
	self associationsDo: [:each | each value == self ifTrue: [^ each key]].
	^ nil
%

category: 'Accessing'
method: SymbolDictionary
name: aSymbol
	self at: aSymbol asSymbol put: self
%

category: 'Printing'
method: SymbolDictionary
printOn: aStream
	"Values that are symbol dictionaries print as their names: dictionaries hold themselves."
	aStream nextPutAll: self describeClassName; nextPutAll: '( '.
	self associations
		do: [:each |
			aStream print: each key; nextPutAll: '->'.
			(each value isKindOf: SymbolDictionary)
				ifTrue: [aStream nextPutAll: (each value name ifNil: ['aSymbolDictionary'])]
				ifFalse: [aStream print: each value]]
		separatedBy: [aStream nextPutAll: ', '].
	aStream nextPut: $)
%
