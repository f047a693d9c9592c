module pyramid

go 1.26.0
