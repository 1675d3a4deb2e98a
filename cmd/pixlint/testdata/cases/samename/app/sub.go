package app

// Sub is in a file named as the folder beside it.
const Sub = 1
