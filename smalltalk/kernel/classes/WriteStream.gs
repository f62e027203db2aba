! WriteStream: its comment, then its instance and class methods.

doit
WriteStream comment: 'Writes into a sequenceable collection, growing it as needed (nextPut:,
nextPutAll:, print:, cr, tab, space, contents).'.
true
%

category: 'Private'
method: WriteStream
_on: aCollection
	collection := aCollection.
	position := 0.
	readLimit := 0.
	writeLimit := aCollection size
%

category: 'Positioning'
method: WriteStream
setToEnd
	position := readLimit := writeLimit
%

category: 'Positioning'
method: WriteStream
reset
	readLimit := readLimit max: position.
	position := 0
%

category: 'Private'
method: WriteStream
_grow
	| bigger |
	<primitive: 408>
	bigger := collection species new: (collection size * 2 max: 16).
	bigger replaceFrom: 1 to: collection size with: collection startingAt: 1.
	collection := bigger.
	writeLimit := collection size
%

category: 'Writing'
method: WriteStream
nextPut: anObject
	<primitive: 414>
	position >= writeLimit ifTrue: [self _grow].
	position := position + 1.
	collection at: position put: anObject.
	position > readLimit ifTrue: [readLimit := position].
	^ anObject
%

category: 'Writing'
method: WriteStream
nextPutAll: aCollection
	"Copies a sequenceable collection in one replaceFrom:to:with:startingAt:; other collections element by element."
	| end |
	<primitive: 415>
	(aCollection isKindOf: SequenceableCollection)
		ifFalse: [aCollection do: [:each | self nextPut: each]. ^ aCollection].
	end := position + aCollection size.
	[end > writeLimit] whileTrue: [self _grow].
	collection replaceFrom: position + 1 to: end with: aCollection startingAt: 1.
	position := end.
	end > readLimit ifTrue: [readLimit := end].
	^ aCollection
%

category: 'Writing'
method: WriteStream
next: anInteger put: anObject
	anInteger timesRepeat: [self nextPut: anObject].
	^ anObject
%

category: 'Writing'
method: WriteStream
print: anObject
	anObject printOn: self
%

category: 'Writing'
method: WriteStream
display: anObject
	anObject displayOn: self
%

category: 'Writing'
method: WriteStream
<< anObject
	"Appends a collection's elements, or any other object's displayString."
	(anObject isString or: [anObject isArray])
		ifTrue: [self nextPutAll: anObject]
		ifFalse: [self nextPutAll: anObject displayString]
%

category: 'Writing'
method: WriteStream
cr
	"A line end: GemStone writes a line feed."
	self nextPut: Character lf
%

category: 'Writing'
method: WriteStream
lf
	self nextPut: Character lf
%

category: 'Writing'
method: WriteStream
tab
	self nextPut: Character tab
%

category: 'Writing'
method: WriteStream
space
	self nextPut: Character space
%

category: 'Writing'
method: WriteStream
tab: anInteger
	anInteger timesRepeat: [self tab]
%

category: 'Writing'
method: WriteStream
space: anInteger
	anInteger timesRepeat: [self space]
%

category: 'Accessing'
method: WriteStream
contents
	^ collection copyFrom: 1 to: position
%

category: 'Accessing'
method: WriteStream
next
	^ self shouldNotImplement
%

category: 'Instance Creation'
classmethod: WriteStream
on: aCollection
	"Writes over aCollection from its start."
	^ self basicNew _on: aCollection
%

category: 'Instance Creation'
classmethod: WriteStream
with: aCollection
	"Writes after the elements aCollection already holds."
	^ (self basicNew _on: aCollection) setToEnd
%
