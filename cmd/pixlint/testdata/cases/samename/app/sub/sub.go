package sub

// Name is in the folder's own file of the same name, which is not beside it.
const Name = "sub"
