! ReadWriteStream: its comment, then its instance and class methods.

doit
ReadWriteStream comment: 'A WriteStream that can also be read back.'.
true
%

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

category: 'Instance Creation'
classmethod: ReadWriteStream
with: aCollection
	^ (self basicNew _on: aCollection) setToEnd
%
