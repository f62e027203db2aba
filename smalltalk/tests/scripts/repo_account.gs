! A class filed in by tests/topaz_repo.rs the way a GemStone load script is: a
! class definition, then its methods with topaz's category:/method: commands.
doit
Object subclass: 'Account'
	instVarNames: #(owner balance history)
	classVars: #(Opened)
	classInstVars: #()
	poolDictionaries: #()
	inDictionary: UserGlobals
	options: #()
%
set class Account
removeallmethods
removeallclassmethods
category: 'instance creation'
classmethod:
owner: aString
	Opened := (Opened ifNil: [0]) + 1.
	^ self new setOwner: aString
%
category: 'counting'
classmethod:
opened
	^ Opened ifNil: [0]
%
category: 'private'
method:
setOwner: aString
	owner := aString.
	balance := 0.
	history := OrderedCollection new
%
category: 'accessing'
method:
owner
	^ owner
%
method:
balance
	^ balance
%
method:
history
	^ history
%
category: 'transactions'
method:
deposit: anInteger
	anInteger > 0 ifFalse: [^ self error: 'deposit must be positive'].
	balance := balance + anInteger.
	history add: #deposit -> anInteger
%
method:
withdraw: anInteger
	anInteger > balance ifTrue: [^ self error: 'insufficient funds'].
	balance := balance - anInteger.
	history add: #withdraw -> anInteger
%
category: 'printing'
method:
printOn: aStream
	aStream nextPutAll: owner; nextPutAll: ': '; print: balance
%
