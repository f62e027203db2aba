! Association: its comment, then its instance and class methods.

doit
Association comment: 'A key and a value; the entries of dictionaries and the bindings of global
variables.'.
true
%

category: 'Accessing'
method: Association
key
	^ key
%

category: 'Accessing'
method: Association
value
	^ value
%

category: 'Accessing'
method: Association
key: aKey
	key := aKey
%

category: 'Accessing'
method: Association
value: aValue
	value := aValue
%

category: 'Accessing'
method: Association
key: aKey value: aValue
	key := aKey.
	value := aValue
%

category: 'Printing'
method: Association
printOn: aStream
	aStream print: key; nextPutAll: '->'; print: value
%

category: 'Comparing'
method: Association
= anObject
	^ (anObject isKindOf: Association)
		and: [key = anObject key and: [value = anObject value]]
%

category: 'Comparing'
method: Association
hash
	^ key hash
%

category: 'Comparing'
method: Association
< anAssociation
	^ key < anAssociation key
%

category: 'Printing'
method: Association
printString
	^ self _printStringFromPrintOn
%

category: 'Accessing'
classmethod: Association
key: aKey value: aValue
	^ self new key: aKey value: aValue
%
