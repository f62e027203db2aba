! TranscriptStream: its comment, then its instance and class methods.

doit
TranscriptStream comment: 'The session''s transcript: what show:, cr and tab write goes to the session''s
output.'.
true
%

category: 'Writing'
method: TranscriptStream
nextPutAll: aString
	<primitive: 300>
	^ self
%

category: 'Writing'
method: TranscriptStream
cr
	<primitive: 301>
	^ self
%

category: 'Writing'
method: TranscriptStream
tab
	<primitive: 302>
	^ self
%

category: 'Writing'
method: TranscriptStream
space
	<primitive: 303>
	^ self
%

category: 'Writing'
method: TranscriptStream
contents
	<primitive: 304>
	^ ''
%

category: 'Printing'
method: TranscriptStream
printString
	^ 'a TranscriptStream'
%

category: 'Writing'
method: TranscriptStream
show: anObject
	^ self nextPutAll: (anObject isString ifTrue: [anObject] ifFalse: [anObject displayString])
%

category: 'Writing'
method: TranscriptStream
print: anObject
	^ self nextPutAll: anObject printString
%

category: 'Writing'
method: TranscriptStream
display: anObject
	^ self nextPutAll: anObject displayString
%

category: 'Writing'
method: TranscriptStream
showCr: aString
	self show: aString; cr
%

category: 'Writing'
method: TranscriptStream
<< anObject
	^ self show: anObject
%

category: 'Writing'
method: TranscriptStream
nl
	^ self cr
%

category: 'Writing'
method: TranscriptStream
lf
	^ self cr
%

category: 'Writing'
method: TranscriptStream
tab: anInteger
	anInteger timesRepeat: [self tab]
%

category: 'Writing'
method: TranscriptStream
space: anInteger
	anInteger timesRepeat: [self space]
%

category: 'Writing'
method: TranscriptStream
nextPut: aCharacter
	^ self nextPutAll: (String with: aCharacter)
%
