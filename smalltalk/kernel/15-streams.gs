! Streams over sequenceable collections: PositionableStream, ReadStream, WriteStream, ReadWriteStream (positions are 0-based, as in GemStone 3.x).

! ------------------------------------------------------------ PositionableStream

category: 'Instance creation'
classmethod: PositionableStream
on: aCollection
	^ self basicNew _on: aCollection
%

category: 'Private'
method: PositionableStream
_on: aCollection
	collection := aCollection.
	position := 0.
	readLimit := aCollection size
%

category: 'Accessing'
method: PositionableStream
collection
	^ collection
%

category: 'Positioning'
method: PositionableStream
position
	^ position
%

category: 'Positioning'
method: PositionableStream
position: anInteger
	(anInteger isInteger and: [anInteger between: 0 and: readLimit])
		ifFalse: [^ OutOfRange new signal: 'position ', anInteger printString, ' is out of range (0 to ', readLimit printString, ')'].
	position := anInteger
%

category: 'Positioning'
method: PositionableStream
reset
	position := 0
%

category: 'Positioning'
method: PositionableStream
setToEnd
	position := readLimit
%

category: 'Positioning'
method: PositionableStream
skip: anInteger
	position := (position + anInteger max: 0) min: readLimit
%

category: 'Testing'
method: PositionableStream
atEnd
	^ position >= readLimit
%

category: 'Testing'
method: PositionableStream
isEmpty
	^ readLimit = 0
%

category: 'Testing'
method: PositionableStream
notEmpty
	^ readLimit > 0
%

category: 'Accessing'
method: PositionableStream
next
	"The next element, or nil at the end."
	self atEnd ifTrue: [^ nil].
	position := position + 1.
	^ collection at: position
%

category: 'Accessing'
method: PositionableStream
next: anInteger
	"The next anInteger elements (fewer at the end), in a collection like the one streamed over."
	| start stop |
	start := position + 1.
	stop := position + anInteger min: readLimit.
	position := stop.
	^ collection copyFrom: start to: stop
%

category: 'Accessing'
method: PositionableStream
peek
	"The next element without moving, or nil at the end."
	self atEnd ifTrue: [^ nil].
	^ collection at: position + 1
%

category: 'Accessing'
method: PositionableStream
peekFor: anObject
	self atEnd ifTrue: [^ false].
	(collection at: position + 1) = anObject ifFalse: [^ false].
	position := position + 1.
	^ true
%

category: 'Accessing'
method: PositionableStream
upTo: anObject
	"The elements up to (not including) anObject, moving past it; the rest when it does not occur."
	| start |
	start := position + 1.
	[self atEnd] whileFalse: [
		(collection at: position + 1) = anObject
			ifTrue: [position := position + 1. ^ collection copyFrom: start to: position - 1].
		position := position + 1].
	^ collection copyFrom: start to: position
%

category: 'Accessing'
method: PositionableStream
upToEnd
	| start |
	start := position + 1.
	position := readLimit.
	^ collection copyFrom: start to: readLimit
%

category: 'Accessing'
method: PositionableStream
nextLine
	"The characters up to the next LF, CR LF or CR, moving past the line end."
	| start stop char |
	start := position + 1.
	[self atEnd] whileFalse: [
		char := collection at: position + 1.
		position := position + 1.
		char == Character lf ifTrue: [^ collection copyFrom: start to: position - 1].
		char == Character cr ifTrue: [
			stop := position - 1.
			self peekFor: Character lf.
			^ collection copyFrom: start to: stop]].
	^ collection copyFrom: start to: position
%

category: 'Accessing'
method: PositionableStream
skipSeparators
	[self atEnd not and: [self peek isSeparator]] whileTrue: [position := position + 1]
%

category: 'Accessing'
method: PositionableStream
skipTo: anObject
	[self atEnd] whileFalse: [self next = anObject ifTrue: [^ true]].
	^ false
%

category: 'Enumerating'
method: PositionableStream
do: aBlock
	[self atEnd] whileFalse: [aBlock value: self next]
%

category: 'Accessing'
method: PositionableStream
contents
	^ collection copyFrom: 1 to: readLimit
%

category: 'Printing'
method: PositionableStream
printOn: aStream
	aStream nextPutAll: self describeClassName
%

! ------------------------------------------------------------------ ReadStream

category: 'Instance creation'
classmethod: ReadStream
on: aCollection from: firstIndex to: lastIndex
	^ self on: (aCollection copyFrom: firstIndex to: lastIndex)
%

category: 'Accessing'
method: ReadStream
nextPut: anObject
	^ self shouldNotImplement
%

! ----------------------------------------------------------------- WriteStream

category: 'Instance creation'
classmethod: WriteStream
on: aCollection
	"Writes over aCollection from its start."
	^ self basicNew _on: aCollection
%

category: 'Instance creation'
classmethod: WriteStream
with: aCollection
	"Writes after the elements aCollection already holds."
	^ (self basicNew _on: aCollection) setToEnd
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

! ------------------------------------------------------------ ReadWriteStream

category: 'Accessing'
method: ReadWriteStream
next
	self atEnd ifTrue: [^ nil].
	position := position + 1.
	^ collection at: position
%

category: 'Accessing'
method: ReadWriteStream
contents
	readLimit := readLimit max: position.
	^ collection copyFrom: 1 to: readLimit
%

category: 'Instance creation'
classmethod: ReadWriteStream
with: aCollection
	^ (self basicNew _on: aCollection) setToEnd
%

category: 'Converting'
method: SequenceableCollection
readWriteStream
	^ ReadWriteStream with: self
%

category: 'Instance creation'
classmethod: SequenceableCollection
new: aSize streamContents: aBlock
	| stream |
	stream := WriteStream on: (self new: aSize).
	aBlock value: stream.
	^ stream contents
%

category: 'Instance creation'
classmethod: SequenceableCollection
streamContents: aBlock
	^ self new: 100 streamContents: aBlock
%
