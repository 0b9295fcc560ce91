use webtensor::*;
fn main() -> Result<()> {
    for d in devices() {
        println!("{:?}", d);
    }
    let dev = Device::parse("webgpu")?;
    let a = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3], dev)?;
    println!("{:?}", a.exp()?.to_vec_blocking::<f32>()?);
    println!("{:?}", a.add(&a.t()?.t()?)?.to_vec_blocking::<f32>()?);
    println!("{:?}", a.matmul(&a.t()?)?.to_vec_blocking::<f32>()?);
    println!("{:?}", a.sum(&[1], false)?.to_vec_blocking::<f32>()?);
    println!("{:?}", a.softmax(-1)?.to_vec_blocking::<f32>()?);
    println!("{:?}", a.argmax(Some(1), false)?.to_vec_blocking::<i32>()?);
    let b = Tensor::randn(&[1000, 5000], Some(1), dev)?;
    println!(
        "{:?} {:?}",
        b.sum_all()?.item_blocking::<f32>()?,
        b.to_blocking(Device::CPU)?.sum_all()?.item_blocking::<f32>()?
    );
    println!("{}", memory_summary(dev)?);
    Ok(())
}
