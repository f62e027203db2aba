! Methods a repository adds to the kernel when it is created: the transaction
! messages that need the store (primitives 380..399, answered by src/persist/)
! and AllUsers, the repository's users. Filed in once, then committed with the
! kernel as commit 1.

doit
Object subclass: 'UserProfileSet' instVarNames: #() classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: Globals.
true
%

doit
Globals at: #AllUsers put: UserProfileSet new.
true
%

doit
Error subclass: 'SecurityError' instVarNames: #() classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: Globals.
true
%

category: 'Error numbers'
classmethod: SecurityError
_defaultNumber
	"A store into an object this user may not write (a read-only user and a
	shared persistent object); see PERSISTENCE.md."
	^ 2108
%

category: 'transactions'
classmethod: System
continueTransaction
	"Moves the view to the latest commit keeping this session's changes."
	<primitive: 380>
	^ nil
%

category: 'transactions'
classmethod: System
transactionConflicts
	"A SymbolDictionary describing the last commit: #commitResult (#success or
	#failure) and, after a failure, #'Write-Write' with the objects both wrote."
	<primitive: 381>
	^ nil
%

category: 'transactions'
classmethod: System
transactionMode
	<primitive: 382>
	^ #autoBegin
%

category: 'users'
method: UserProfileSet
addNewUserWithId: aUserId password: aPassword
	"Creates a user with its own UserGlobals and symbol list (UserGlobals, Globals,
	Published); it exists for other logins once this session commits."
	<primitive: 383>
	^ ArgumentError new signal: 'user ids and passwords are Strings'
%

category: 'users'
method: UserProfileSet
addNewUserWithId: aUserId password: aPassword commitDisabled: aBoolean
	"As addNewUserWithId:password:, for a read-only user when aBoolean is true."
	<primitive: 384>
	^ ArgumentError new signal: 'user ids and passwords are Strings, the flag a Boolean'
%

category: 'users'
method: UserProfileSet
userIds
	"The ids of every user, an Array of Strings."
	<primitive: 385>
	^ nil
%

category: 'users'
method: UserProfileSet
userWithId: aUserId
	"The UserProfile of that user, or nil."
	<primitive: 386>
	^ nil
%

category: 'users'
method: UserProfileSet
printOn: aStream
	aStream nextPutAll: 'AllUsers'
%

! JSON Web Token logins (see src/persist/jwt.rs): a user enabled for them
! logs in with a token whose password flag says so (GCI_JWT_PASSWORD), which
! the stone checks against the user's JwtSecurityData and the keys it trusts.

doit
Object subclass: 'JwtSecurityData' instVarNames: #(userIdKey validUserIds validIssuers validAudiences) classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: Globals.
true
%

doit
Object subclass: 'GsTlsPublicKey' instVarNames: #(pemString algorithm) classVars: #() classInstVars: #() poolDictionaries: #() inDictionary: Globals.
true
%

category: 'Instance Creation'
classmethod: JwtSecurityData
new
	"A JwtSecurityData naming the user by the #sub claim, with no user ids,
	issuers or audiences yet."
	^ self basicNew initialize
%

category: 'Validation'
classmethod: JwtSecurityData
validateIdentitySetOfSymbols: aSet name: aName allowEmpty: aBoolean
	"Signals an ArgumentError unless aSet is a collection of Symbols, not
	empty unless aBoolean is true."
	(aSet isKindOf: Collection)
		ifFalse: [^ ArgumentError new signal: aName asString , ' must be a collection of Symbols'].
	(aSet allSatisfy: [:each | each isSymbol])
		ifFalse: [^ ArgumentError new signal: aName asString , ' must hold only Symbols'].
	(aBoolean not and: [aSet isEmpty])
		ifTrue: [^ ArgumentError new signal: aName asString , ' must not be empty'].
	^ true
%

category: 'Private'
method: JwtSecurityData
initialize
	userIdKey := #sub.
	validUserIds := IdentitySet new.
	validIssuers := IdentitySet new.
	validAudiences := IdentitySet new
%

category: 'Private'
method: JwtSecurityData
_symbolFrom: aString named: aName
	((aString isKindOf: String) and: [aString notEmpty])
		ifFalse: [^ ArgumentError new signal: aName , ' must be a non-empty String or Symbol'].
	^ aString asSymbol
%

category: 'Accessing'
method: JwtSecurityData
userIdKey
	"The claim of a token that names the user."
	^ userIdKey
%

category: 'Updating'
method: JwtSecurityData
userIdKey: aString
	userIdKey := self _symbolFrom: aString named: 'userIdKey'
%

category: 'Accessing'
method: JwtSecurityData
validUserIds
	^ validUserIds
%

category: 'Accessing'
method: JwtSecurityData
validIssuers
	^ validIssuers
%

category: 'Accessing'
method: JwtSecurityData
validAudiences
	^ validAudiences
%

category: 'Updating'
method: JwtSecurityData
addUserId: aString
	"A value the userIdKey claim may have."
	validUserIds add: (self _symbolFrom: aString named: 'a user id')
%

category: 'Updating'
method: JwtSecurityData
addIssuer: aString
	"An issuer (iss) a token may come from; #* accepts any."
	validIssuers add: (self _symbolFrom: aString named: 'an issuer')
%

category: 'Updating'
method: JwtSecurityData
addAudience: aString
	"An audience (aud) a token may be for; #* accepts any."
	validAudiences add: (self _symbolFrom: aString named: 'an audience')
%

category: 'Validation'
method: JwtSecurityData
validate
	"Signals an ArgumentError unless every part is set."
	self _symbolFrom: userIdKey named: 'userIdKey'.
	self class validateIdentitySetOfSymbols: validUserIds name: #validUserIds allowEmpty: false.
	self class validateIdentitySetOfSymbols: validIssuers name: #validIssuers allowEmpty: false.
	self class validateIdentitySetOfSymbols: validAudiences name: #validAudiences allowEmpty: false.
	^ true
%

category: 'Printing'
method: JwtSecurityData
printOn: aStream
	aStream nextPutAll: 'a JwtSecurityData(' , userIdKey printString , ')'
%

category: 'JWT logins'
method: UserProfile
enableJwtAuthenticationWith: aJwtSecurityData
	"From the commit of this session on, this user logs in with JSON Web
	Tokens that aJwtSecurityData accepts, signed by a key the stone trusts
	(System addJwtKey:withId:), and no longer with its password."
	| sorted |
	(aJwtSecurityData isKindOf: JwtSecurityData)
		ifFalse: [^ ArgumentError new signal: 'enableJwtAuthenticationWith: takes a JwtSecurityData'].
	aJwtSecurityData validate.
	sorted := [:set | (set collect: [:each | each asString]) asArray asSortedCollection asArray].
	self
		_enableJwtFor: self userId
		key: aJwtSecurityData userIdKey asString
		userIds: (sorted value: aJwtSecurityData validUserIds)
		issuers: (sorted value: aJwtSecurityData validIssuers)
		audiences: (sorted value: aJwtSecurityData validAudiences)
%

category: 'Private'
method: UserProfile
_enableJwtFor: aUserId key: aKey userIds: userIds issuers: issuers audiences: audiences
	"The primitive fails only in an image with no repository."
	<primitive: 387>
	^ ImproperOperation new signal: 'JWT logins need a repository'
%

category: 'JWT logins'
classmethod: System
addJwtKey: aGsTlsPublicKey withId: aKeyId
	"Trusts aGsTlsPublicKey, under aKeyId (a token's kid), for JSON Web
	Token logins: at once, for every session, whatever the transaction."
	(aGsTlsPublicKey isKindOf: GsTlsPublicKey)
		ifFalse: [^ ArgumentError new signal: 'addJwtKey:withId: takes a GsTlsPublicKey'].
	^ self _addJwtKeyPem: aGsTlsPublicKey asPemString withId: aKeyId
%

category: 'Private'
classmethod: System
_addJwtKeyPem: aString withId: aKeyId
	<primitive: 388>
	^ self _jwtKeyFailure: aKeyId
%

category: 'JWT logins'
classmethod: System
removeJwtKeyWithId: aKeyId
	"Stops trusting the key aKeyId; an error when there is none."
	<primitive: 389>
	^ self _jwtKeyFailure: aKeyId
%

category: 'Private'
classmethod: System
_jwtKeyFailure: aKeyId
	"Why a change of the trusted keys failed before it was tried."
	(aKeyId isKindOf: String)
		ifFalse: [^ ArgumentError new signal: 'a key id is a String'].
	^ ImproperOperation new signal: 'trusted JWT keys need a repository'
%

category: 'JWT logins'
classmethod: System
jwtPublicKeys
	"The trusted keys: an Array of key id, GsTlsPublicKey, key id, ..."
	| pems result |
	pems := self _jwtPublicKeyPems.
	result := Array new: pems size.
	1 to: pems size by: 2 do: [:i |
		result at: i put: (pems at: i).
		result at: i + 1 put: (GsTlsPublicKey newFromPemString: (pems at: i + 1))].
	^ result
%

category: 'Private'
classmethod: System
_jwtPublicKeyPems
	<primitive: 390>
	^ #()
%

category: 'Instance Creation'
classmethod: GsTlsPublicKey
newFromPemString: aString
	"The public key a PEM text holds (-----BEGIN PUBLIC KEY-----: RSA, EC or
	Ed25519); an ArgumentError for anything else."
	| kind |
	(aString isKindOf: String)
		ifFalse: [^ ArgumentError new signal: 'newFromPemString: takes a String'].
	kind := self _kindOfPem: aString.
	^ self basicNew _pem: aString trimSeparators algorithm: kind
%

category: 'Instance Creation'
classmethod: GsTlsPublicKey
newFromPemFile: aPath
	"The public key in the PEM file aPath on the stone's host (read by an
	administrator only)."
	(aPath isKindOf: String)
		ifFalse: [^ ArgumentError new signal: 'newFromPemFile: takes a path String'].
	^ self newFromPemString: (self _pemOfFile: aPath)
%

category: 'Private'
classmethod: GsTlsPublicKey
_kindOfPem: aString
	<primitive: 391>
	^ ArgumentError new signal: 'not a PEM public key'
%

category: 'Private'
classmethod: GsTlsPublicKey
_pemOfFile: aPath
	<primitive: 392>
	^ ArgumentError new signal: 'cannot read the key file'
%

category: 'Private'
method: GsTlsPublicKey
_pem: aString algorithm: aSymbol
	pemString := aString.
	algorithm := aSymbol
%

category: 'Accessing'
method: GsTlsPublicKey
asPemString
	^ pemString
%

category: 'Accessing'
method: GsTlsPublicKey
algorithm
	"#RSA, #EC or #Ed25519."
	^ algorithm
%

category: 'Printing'
method: GsTlsPublicKey
printOn: aStream
	aStream nextPutAll: 'a GsTlsPublicKey(' , algorithm asString , ')'
%
