! IdentityDictionary: its comment, then its instance and class methods.

doit
IdentityDictionary comment: 'A dictionary that compares its keys with == (identity).'.
true
%

category: 'Private'
method: IdentityDictionary
_indexOf: aKey
	"As Dictionary>>_indexOf:, by identity."
	| n index assoc |
	n := buckets size.
	index := aKey identityHash \\ 16r3FFFFFFF * 40503 \\ n + 1.
	[(assoc := buckets at: index) == nil or: [assoc key == aKey]]
		whileFalse: [index := index \\ n + 1].
	^ index
%
