! Collection: its comment, then its instance and class methods.

doit
Collection comment: 'The abstract superclass of every collection: adding and removing, enumerating
(do:, select:, reject:, collect:, detect:ifNone:, inject:into:), testing
(isEmpty, includes:, anySatisfy:) and converting (asArray,
asOrderedCollection, asSet, asSortedCollection:).'.
true
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

category: 'JSON'
method: Collection
printJsonOn: aStream
	aStream nextPut: $[.
	self do: [:each | each printJsonOn: aStream] separatedBy: [aStream nextPut: $,].
	aStream nextPut: $]
%

category: 'Instance Creation'
classmethod: Collection
with: anObject
	<primitive: 417>
	^ self new add: anObject; yourself
%

category: 'Instance Creation'
classmethod: Collection
with: first with: second
	<primitive: 417>
	^ self new add: first; add: second; yourself
%

category: 'Instance Creation'
classmethod: Collection
with: first with: second with: third
	<primitive: 417>
	^ self new add: first; add: second; add: third; yourself
%

category: 'Instance Creation'
classmethod: Collection
with: first with: second with: third with: fourth
	<primitive: 417>
	^ self new add: first; add: second; add: third; add: fourth; yourself
%

category: 'Instance Creation'
classmethod: Collection
with: first with: second with: third with: fourth with: fifth
	<primitive: 417>
	^ self new add: first; add: second; add: third; add: fourth; add: fifth; yourself
%

category: 'Instance Creation'
classmethod: Collection
with: first with: second with: third with: fourth with: fifth with: sixth
	<primitive: 417>
	^ self new add: first; add: second; add: third; add: fourth; add: fifth; add: sixth; yourself
%

category: 'Instance Creation'
classmethod: Collection
withAll: aCollection
	^ self new addAll: aCollection; yourself
%
