package app

//gocyclo:ignore
func Hidden() {}
