// A model's tensor names need not be Rust names, nor their own: tensors that share a name
// (in a subgraph or across subgraphs) are `NAME#INDEX` (`NAME#SUBGRAPH.INDEX` past subgraph
// 0), and a tensor whose Rust name is taken (by the module's own `Plan`, a step view
// `AtStepN`, another name that mangles alike) gets `#2` (`#b2` for a step view's name), so
// that such a model plans in the macro as `memplan plan` plans it, with no tensor renamed
// in the file. memplan-planner's tests/model_hostile.rs makes both models.
use memplan_runtime::MemoryAllocator;
use memplan_runtime::ops::{self, In, Out};

memplan_runtime::memory_plan! {
    mod hello {
        region act: 1 KiB;
        // hello_world with its planned tensors named `plan`, `x`, `x`, `x_7`.
        model in act from "../hello_names_repeat.tflite";
    }
}

memplan_runtime::memory_plan! {
    mod graphs {
        region act: 64 KiB;
        // Three subgraphs, each with tensors `t`, `t`; subgraph 0 also `at_step_1`, `x.y`
        // and `x_y`.
        buffers in act from "../subgraph_names_repeat.tflite";
    }
}

struct Kernels(usize);

impl hello::FullyConnected for Kernels {
    fn fully_connected(&mut self, _: &ops::FullyConnected, input: In<'_, i8>, _: In<'_, i8>, _: Option<In<'_, i32>>, output: Out<'_, i8>, _: &mut MemoryAllocator<'static>) {
        self.0 += 1;
        output.data.fill(input.data[0]);
    }
}

fn main() {
    let names: Vec<&str> = hello::BUFFERS.iter().map(|b| b.name).collect();
    assert_eq!(names, ["plan#2", "x#7", "x#8", "x_7#2"]);
    let _: (hello::Plan2, hello::X7, hello::X8, hello::X72);
    let manager = hello::take().expect("taken once");
    let mut k = Kernels(0);
    let mut out = [0i8; 1];
    hello::run(manager, &mut k, |input| input.fill(5), |o| out = *o);
    assert_eq!((k.0, out), (3, [5]));

    let names: Vec<&str> = graphs::BUFFERS.iter().map(|b| b.name).collect();
    assert_eq!(
        names,
        ["t#0", "t#1", "at_step_1#b2", "x.y", "x_y#2", "t#1.0", "t#1.1", "t#2.0", "t#2.1"]
    );
    let _: (graphs::T0, graphs::T1, graphs::AtStep1B2, graphs::XY, graphs::XY2);
    let _: (graphs::T10, graphs::T11, graphs::T20, graphs::T21);
    let m = graphs::take().expect("taken once");
    let (s, _) = m.step_any_order::<0>();
    let _: &mut [i8; 16384] = s.t_0;
}
