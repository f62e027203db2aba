! Symbol: its comment, then its instance and class methods.

doit
Symbol comment: 'A unique, invariant string: two equal symbols are the same object. Selectors
and the keys of symbol dictionaries are symbols.'.
true
%

category: 'Testing'
method: Symbol
isSymbol
	^ true
%

category: 'Comparing'
method: Symbol
= anObject
	^ self == anObject
%

category: 'Comparing'
method: Symbol
hash
	^ self identityHash
%

category: 'Primitives'
method: Symbol
numArgs
	<primitive: 223>
	^ 0
%

category: 'Primitives'
method: Symbol
keywords
	<primitive: 239>
	^ Array with: self
%

category: 'Private'
method: Symbol
species
	^ String
%

category: 'Copying'
method: Symbol
copy
	^ self
%

category: 'Copying'
method: Symbol
shallowCopy
	^ self
%

category: 'Converting'
method: Symbol
asSymbol
	^ self
%

category: 'Instance Creation'
classmethod: Symbol
withAll: aString
	^ aString asSymbol
%

category: 'Instance Creation'
classmethod: Symbol
new
	^ self shouldNotImplement
%
