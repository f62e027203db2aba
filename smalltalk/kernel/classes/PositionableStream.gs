! PositionableStream: its comment, then its instance and class methods.

doit
PositionableStream comment: 'The abstract superclass of the streams over a sequenceable collection, with a
position from 0 (before the first element) to the end.'.
true
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

category: 'Instance Creation'
classmethod: PositionableStream
on: aCollection
	^ self basicNew _on: aCollection
%
