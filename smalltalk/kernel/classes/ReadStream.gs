! ReadStream: its comment, then its instance and class methods.

doit
ReadStream comment: 'Reads a sequenceable collection element by element (next, peek, upTo:, skip:,
atEnd).'.
true
%

category: 'Accessing'
method: ReadStream
nextPut: anObject
	^ self shouldNotImplement
%

category: 'Instance Creation'
classmethod: ReadStream
on: aCollection from: firstIndex to: lastIndex
	^ self on: (aCollection copyFrom: firstIndex to: lastIndex)
%
