! SequenceableCollection: its comment, then its instance and class methods.

doit
SequenceableCollection comment: 'The abstract superclass of the collections whose elements have an order and an
index from 1: first, last, at:, indexOf:, copyFrom:to:, reverse, with:do:,
doWithIndex:, and comparison element by element.'.
true
%

category: 'Enumerating'
method: SequenceableCollection
do: aBlock
	<primitive: 406>
	1 to: self size do: [:i | aBlock value: (self at: i)]
%

category: 'Enumerating'
method: SequenceableCollection
reverseDo: aBlock
	self size to: 1 by: -1 do: [:i | aBlock value: (self at: i)]
%

category: 'Enumerating'
method: SequenceableCollection
doWithIndex: aBlock
	"aBlock takes the element, then its index."
	<primitive: 407>
	1 to: self size do: [:i | aBlock value: (self at: i) value: i]
%

category: 'Enumerating'
method: SequenceableCollection
withIndexDo: aBlock
	<primitive: 407>
	1 to: self size do: [:i | aBlock value: (self at: i) value: i]
%

category: 'Enumerating'
method: SequenceableCollection
keysAndValuesDo: aBlock
	"aBlock takes the index, then the element."
	1 to: self size do: [:i | aBlock value: i value: (self at: i)]
%

category: 'Enumerating'
method: SequenceableCollection
from: start to: stop do: aBlock
	start to: stop do: [:i | aBlock value: (self at: i)]
%

category: 'Enumerating'
method: SequenceableCollection
with: aCollection do: aBlock
	aCollection size = self size
		ifFalse: [^ ArgumentError new signal: 'The collections differ in size'].
	1 to: self size do: [:i | aBlock value: (self at: i) value: (aCollection at: i)]
%

category: 'Enumerating'
method: SequenceableCollection
with: aCollection collect: aBlock
	| result |
	aCollection size = self size
		ifFalse: [^ ArgumentError new signal: 'The collections differ in size'].
	result := OrderedCollection new.
	1 to: self size do: [:i | result add: (aBlock value: (self at: i) value: (aCollection at: i))].
	^ self species withAll: result
%

category: 'Enumerating'
method: SequenceableCollection
collect: aBlock
	| result |
	result := OrderedCollection new.
	1 to: self size do: [:i | result add: (aBlock value: (self at: i))].
	^ self species withAll: result
%

category: 'Enumerating'
method: SequenceableCollection
collectWithIndex: aBlock
	| result |
	result := OrderedCollection new.
	1 to: self size do: [:i | result add: (aBlock value: (self at: i) value: i)].
	^ self species withAll: result
%

category: 'Enumerating'
method: SequenceableCollection
select: aBlock
	| result |
	result := OrderedCollection new.
	self do: [:each | (aBlock value: each) ifTrue: [result add: each]].
	^ self species withAll: result
%

category: 'Enumerating'
method: SequenceableCollection
findFirst: aBlock
	1 to: self size do: [:i | (aBlock value: (self at: i)) ifTrue: [^ i]].
	^ 0
%

category: 'Enumerating'
method: SequenceableCollection
findLast: aBlock
	self size to: 1 by: -1 do: [:i | (aBlock value: (self at: i)) ifTrue: [^ i]].
	^ 0
%

category: 'Accessing'
method: SequenceableCollection
first
	"The first element; an empty receiver signals the index error of at: 1."
	<primitive: 427>
	^ self at: 1
%

category: 'Accessing'
method: SequenceableCollection
last
	"The last element; an empty receiver signals the index error of at: 0."
	<primitive: 428>
	^ self at: self size
%

category: 'Accessing'
method: SequenceableCollection
second
	^ self at: 2
%

category: 'Accessing'
method: SequenceableCollection
third
	^ self at: 3
%

category: 'Accessing'
method: SequenceableCollection
first: n
	^ self copyFrom: 1 to: n
%

category: 'Accessing'
method: SequenceableCollection
last: n
	^ self copyFrom: self size - n + 1 to: self size
%

category: 'Accessing'
method: SequenceableCollection
allButFirst
	^ self copyFrom: 2 to: self size
%

category: 'Accessing'
method: SequenceableCollection
allButLast
	^ self copyFrom: 1 to: self size - 1
%

category: 'Accessing'
method: SequenceableCollection
at: anIndex ifAbsent: aBlock
	(anIndex isInteger and: [anIndex between: 1 and: self size]) ifFalse: [^ aBlock value].
	^ self at: anIndex
%

category: 'Accessing'
method: SequenceableCollection
indexOf: anObject
	1 to: self size do: [:i | (self at: i) = anObject ifTrue: [^ i]].
	^ 0
%

category: 'Accessing'
method: SequenceableCollection
indexOf: anObject ifAbsent: aBlock
	| index |
	index := self indexOf: anObject.
	^ index = 0 ifTrue: [aBlock value] ifFalse: [index]
%

category: 'Accessing'
method: SequenceableCollection
indexOf: anObject startingAt: start
	start to: self size do: [:i | (self at: i) = anObject ifTrue: [^ i]].
	^ 0
%

category: 'Accessing'
method: SequenceableCollection
indexOf: anObject startingAt: start ifAbsent: aBlock
	| index |
	index := self indexOf: anObject startingAt: start.
	^ index = 0 ifTrue: [aBlock value] ifFalse: [index]
%

category: 'Accessing'
method: SequenceableCollection
indexOfSubCollection: aCollection startingAt: start ifAbsent: aBlock
	| n |
	n := aCollection size.
	start to: self size - n + 1 do: [:i | | match |
		match := true.
		1 to: n do: [:j | (match and: [(self at: i + j - 1) ~= (aCollection at: j)]) ifTrue: [match := false]].
		match ifTrue: [^ i]].
	^ aBlock value
%

category: 'Accessing'
method: SequenceableCollection
indexOfSubCollection: aCollection startingAt: start
	^ self indexOfSubCollection: aCollection startingAt: start ifAbsent: [0]
%

category: 'Accessing'
method: SequenceableCollection
indexOfSubCollection: aCollection
	^ self indexOfSubCollection: aCollection startingAt: 1 ifAbsent: [0]
%

category: 'Accessing'
method: SequenceableCollection
atAllPut: anObject
	1 to: self size do: [:i | self at: i put: anObject]
%

category: 'Accessing'
method: SequenceableCollection
swap: i with: j
	| t |
	t := self at: i.
	self at: i put: (self at: j).
	self at: j put: t
%

category: 'Testing'
method: SequenceableCollection
includes: anObject
	^ (self indexOf: anObject) > 0
%

category: 'Testing'
method: SequenceableCollection
isEmpty
	^ self size = 0
%

category: 'Comparing'
method: SequenceableCollection
= aCollection
	self == aCollection ifTrue: [^ true].
	self class == aCollection class ifFalse: [^ false].
	self size = aCollection size ifFalse: [^ false].
	1 to: self size do: [:i | (self at: i) = (aCollection at: i) ifFalse: [^ false]].
	^ true
%

category: 'Comparing'
method: SequenceableCollection
hash
	| h |
	h := self size.
	1 to: (self size min: 8) do: [:i | h := (h * 31 + (self at: i) hash) \\ 16r3FFFFFFF].
	^ h
%

category: 'Testing'
method: SequenceableCollection
beginsWith: aCollection
	aCollection size > self size ifTrue: [^ false].
	1 to: aCollection size do: [:i | (self at: i) = (aCollection at: i) ifFalse: [^ false]].
	^ true
%

category: 'Testing'
method: SequenceableCollection
endsWith: aCollection
	| offset |
	offset := self size - aCollection size.
	offset < 0 ifTrue: [^ false].
	1 to: aCollection size do: [:i | (self at: offset + i) = (aCollection at: i) ifFalse: [^ false]].
	^ true
%

category: 'Copying'
method: SequenceableCollection
copyFrom: start to: stop
	| result |
	(start > (stop + 1) or: [start < 1 or: [stop > self size]])
		ifTrue: [^ OutOfRange new signal: 'copyFrom: ', start printString, ' to: ', stop printString,
			' is out of range (size ', self size printString, ')'].
	result := OrderedCollection new.
	start to: stop do: [:i | result add: (self at: i)].
	^ self species withAll: result
%

category: 'Copying'
method: SequenceableCollection
, aCollection
	| result |
	result := OrderedCollection new.
	self do: [:each | result add: each].
	aCollection do: [:each | result add: each].
	^ self species withAll: result
%

category: 'Copying'
method: SequenceableCollection
copyWith: anObject
	^ self , (Array with: anObject)
%

category: 'Copying'
method: SequenceableCollection
reverse
	| result |
	result := OrderedCollection new.
	self reverseDo: [:each | result add: each].
	^ self species withAll: result
%

category: 'Copying'
method: SequenceableCollection
reversed
	^ self reverse
%

category: 'Copying'
method: SequenceableCollection
copyReplaceAll: oldSub with: newSub
	"A copy with every occurrence of the subcollection oldSub replaced by newSub."
	| result start index |
	oldSub isEmpty ifTrue: [^ self copy].
	result := OrderedCollection new.
	start := 1.
	[index := self indexOfSubCollection: oldSub startingAt: start.
	 index > 0] whileTrue: [
		start to: index - 1 do: [:i | result add: (self at: i)].
		newSub do: [:each | result add: each].
		start := index + oldSub size].
	start to: self size do: [:i | result add: (self at: i)].
	^ self species withAll: result
%

category: 'Copying'
method: SequenceableCollection
copyReplacing: oldObject with: newObject
	^ self collect: [:each | each = oldObject ifTrue: [newObject] ifFalse: [each]]
%

category: 'Copying'
method: SequenceableCollection
replaceAll: oldObject with: newObject
	"Replaces, in place, every element equal to oldObject by newObject."
	1 to: self size do: [:i | (self at: i) = oldObject ifTrue: [self at: i put: newObject]]
%

category: 'Copying'
method: SequenceableCollection
replaceFrom: start to: stop with: aCollection startingAt: repStart
	| offset |
	offset := repStart - start.
	(self == aCollection and: [repStart < start])
		ifTrue: [stop to: start by: -1 do: [:i | self at: i put: (aCollection at: i + offset)]]
		ifFalse: [start to: stop do: [:i | self at: i put: (aCollection at: i + offset)]]
%

category: 'Copying'
method: SequenceableCollection
replaceFrom: start to: stop with: aCollection
	^ self replaceFrom: start to: stop with: aCollection startingAt: 1
%

category: 'Sorting'
method: SequenceableCollection
sort
	^ self sort: [:a :b | a <= b]
%

category: 'Sorting'
method: SequenceableCollection
sort: aSortBlock
	"Sorts the receiver in place (stable merge sort)."
	| sorted |
	sorted := self _asArraySortedBy: aSortBlock.
	1 to: sorted size do: [:i | self at: i put: (sorted at: i)]
%

category: 'Sorting'
method: SequenceableCollection
asSortedCollection: aSortBlock
	^ (SortedCollection sortBlock: aSortBlock) addAll: self; yourself
%

category: 'Converting'
method: SequenceableCollection
readStream
	^ ReadStream on: self
%

category: 'Converting'
method: SequenceableCollection
writeStream
	^ WriteStream on: self
%

category: 'Converting'
method: SequenceableCollection
readWriteStream
	^ ReadWriteStream with: self
%

category: 'JSON'
method: SequenceableCollection
printJsonOn: aStream
	aStream nextPut: $[.
	self do: [:each | each printJsonOn: aStream] separatedBy: [aStream nextPut: $,].
	aStream nextPut: $]
%

category: 'Instance Creation'
classmethod: SequenceableCollection
new: aSize streamContents: aBlock
	| stream |
	stream := WriteStream on: (self new: aSize).
	aBlock value: stream.
	^ stream contents
%

category: 'Instance Creation'
classmethod: SequenceableCollection
streamContents: aBlock
	^ self new: 100 streamContents: aBlock
%
