package delegate_test

import (
	"context"
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/delegate"
	"github.com/a2abind/a2abind/lab"
)

// ExampleNew reads an agent's card, then sends a message through the interface the card
// prefers; the lab's healthy agent echoes the text back in the task's artifact.
func ExampleNew() {
	agent, err := lab.Start(lab.Healthy()...)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer agent.Close()

	ctx := context.Background()
	c, err := delegate.New(ctx, agent.BaseURL)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello"))})
	if err != nil {
		fmt.Println(err)
		return
	}
	task, ok := res.(*a2a.Task)
	if !ok || len(task.Artifacts) == 0 || len(task.Artifacts[0].Parts) == 0 {
		fmt.Printf("unexpected result %T\n", res)
		return
	}
	fmt.Println(task.Status.State, task.Artifacts[0].Parts[0].Text())
	// Output:
	// TASK_STATE_COMPLETED hello
}
