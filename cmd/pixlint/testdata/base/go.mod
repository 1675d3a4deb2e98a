module example.com/lintme

go 1.26
