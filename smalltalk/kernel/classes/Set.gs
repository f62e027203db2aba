! Set: its comment, then its instance and class methods.

doit
Set comment: 'An unordered collection without duplicates, compared with = (and hash).'.
true
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

category: 'Instance Creation'
classmethod: Set
new
	^ self new: 8
%

category: 'Instance Creation'
classmethod: Set
new: aCapacity
	^ self basicNew _initialize: aCapacity
%
