package app

// Assets names the folder of files beside it.
const Assets = "assets"
