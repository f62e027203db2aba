! Bag: its comment, then its instance and class methods.

doit
Bag comment: 'An unordered collection that counts how many times it holds each element.'.
true
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

category: 'Instance Creation'
classmethod: Bag
new
	^ self basicNew _initialize
%

category: 'Instance Creation'
classmethod: Bag
new: aCapacity
	^ self new
%
