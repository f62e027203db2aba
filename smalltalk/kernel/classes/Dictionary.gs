! Dictionary: its comment, then its instance and class methods.

doit
Dictionary comment: 'A dictionary that compares its keys with = (and hash): hashed buckets of
associations.'.
true
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

category: 'Instance Creation'
classmethod: Dictionary
new
	^ self new: 8
%

category: 'Instance Creation'
classmethod: Dictionary
new: aCapacity
	^ self basicNew _initialize: aCapacity
%
