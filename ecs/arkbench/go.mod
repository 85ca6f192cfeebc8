module github.com/rtype/rtype/ecs/arkbench

go 1.26.0

replace github.com/rtype/rtype => ../..

require (
	github.com/mlange-42/ark v0.8.1
	github.com/rtype/rtype v0.0.0-00010101000000-000000000000
)
