! Class: its comment, then its instance and class methods.

doit
Class comment: 'The class of every class that is not a metaclass: subclass creation (subclass:
instVarNames:classVars:classInstVars:poolDictionaries:inDictionary:options:),
class versions and the class comment and category.'.
true
%

category: 'Testing'
method: Class
isClass
	^ true
%

category: 'Accessing'
method: Class
_optionsArray
	"The options the receiver was created with (#modifiable, #dbTransient, ...), as an Array of
	 Symbols; the options a new version must be given to keep them."
	<primitive: 79>
	^ self _primitiveFailed: #_optionsArray
%

category: 'Filing Out'
method: Class
fileOutDefinitionOn: aStream
	"The subclass-creation message that defines the receiver, in GemStone's layout (no category)."
	aStream nextPutAll: (self superclass == nil ifTrue: ['nil'] ifFalse: [self superclass name]);
		nextPutAll: (self isBytes
			ifTrue: [' byteSubclass: ']
			ifFalse: [self isIndexable ifTrue: [' indexableSubclass: '] ifFalse: [' subclass: ']]);
		print: self name asString; lf.
	self isBytes ifFalse: [
		aStream nextPutAll: '  instVarNames: '.
		self _fileOutNames: self instVarNames on: aStream.
		aStream lf].
	aStream nextPutAll: '  classVars: '.
	self _fileOutNames: self classVarNames on: aStream.
	aStream lf; nextPutAll: '  classInstVars: '.
	self _fileOutNames: self class instVarNames on: aStream.
	aStream lf; nextPutAll: '  poolDictionaries: '.
	self _fileOutNames: (self sharedPools collect: [:each | each name]) on: aStream.
	aStream lf; nextPutAll: '  inDictionary: '; nextPutAll: self _homeDictionaryName; lf;
		nextPutAll: '  options: #()'; lf
%

category: 'Filing Out'
method: Class
_fileOutBanner: aString on: aStream
	"! ------------------- Class definition for Foo"
	aStream nextPutAll: '! ------------------- '; nextPutAll: aString; space; nextPutAll: self name; lf
%

category: 'Filing Out'
method: Class
fileOutClassOn: aStream
	"GemStone's file-out layout: the definition, comment and category doits, the removal of
	 existing methods, then class and instance methods in selector order."
	aStream nextPutAll: 'set compile_env: 0'; lf.
	self _fileOutBanner: 'Class definition for' on: aStream.
	aStream nextPutAll: 'expectvalue /Class'; lf; nextPutAll: 'doit'; lf.
	self fileOutDefinitionOn: aStream.
	aStream lf; nextPut: $%; lf.
	self comment == nil ifFalse: [
		aStream nextPutAll: 'expectvalue /Class'; lf; nextPutAll: 'doit'; lf;
			nextPutAll: self name; nextPutAll: ' comment: '; lf;
			print: self comment asString; lf;
			nextPut: $%; lf].
	self category == nil ifFalse: [
		aStream nextPutAll: 'expectvalue /Class'; lf; nextPutAll: 'doit'; lf;
			nextPutAll: self name; nextPutAll: ' category: '; print: self category asString; lf;
			nextPut: $%; lf].
	self _fileOutBanner: 'Remove existing behavior from' on: aStream.
	aStream nextPutAll: 'removeallmethods '; nextPutAll: self name; lf;
		nextPutAll: 'removeallclassmethods '; nextPutAll: self name; lf.
	self class selectors isEmpty ifFalse: [
		self _fileOutBanner: 'Class methods for' on: aStream.
		self class _fileOutMethodsOn: aStream].
	self selectors isEmpty ifFalse: [
		self _fileOutBanner: 'Instance methods for' on: aStream.
		self _fileOutMethodsOn: aStream]
%

category: 'Filing Out'
method: Class
fileOutClass
	"The receiver's definition and methods as topaz input that files them back in."
	| stream |
	stream := WriteStream on: String new.
	self fileOutClassOn: stream.
	^ stream contents
%
